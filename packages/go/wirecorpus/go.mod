module ignite-conformance.example/wirecorpus

go 1.19
