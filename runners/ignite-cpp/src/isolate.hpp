// Crash isolation: every request is answered by a forked child, so a SIGSEGV, an abort, a hang or runaway memory
// in the official client becomes a 'skipped' answer naming the client call, never the end of the runner.
#pragma once

#include <functional>
#include <string>

namespace icpp {

// Records the client call about to run (in memory shared with the parent), named in a crash report.
void calling(const char *call);

// The call last recorded by calling().
std::string current_call();

// Runs answer() in a forked child and returns the line it produced; when the child dies, hangs (more than
// `seconds`) or produces nothing, returns {"id":id,"skipped":"official client crashed: SIGSEGV in <call>"}.
std::string isolated(const std::function<std::string()> &answer, unsigned long long id, unsigned seconds);

} // namespace icpp
