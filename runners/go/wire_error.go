package main

import "fmt"

// WireError is a rejection of the input, with an error class from schema/registry.json.
type WireError struct {
	Class   string
	Message string
}

func (e *WireError) Error() string { return e.Message }

// NotPerformed is a request the runner declines (answered "skipped"): it says so rather than guessing.
type NotPerformed struct{ Reason string }

func (e *NotPerformed) Error() string { return e.Reason }

func wireErr(class, format string, args ...any) error {
	return &WireError{Class: class, Message: fmt.Sprintf(format, args...)}
}

func notPerformed(format string, args ...any) error {
	return &NotPerformed{Reason: fmt.Sprintf(format, args...)}
}

// check returns a WireError when ok is false.
func check(ok bool, class, format string, args ...any) error {
	if ok {
		return nil
	}
	return wireErr(class, format, args...)
}
