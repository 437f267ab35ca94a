#include "isolate.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace icpp {

namespace {

constexpr std::size_t CALL_MAX = 256;
// Memory a child may map: a runaway allocation from a corrupt length fails as std::bad_alloc instead.
constexpr rlim_t CHILD_AS = rlim_t(1) << 30;

char *shared_call() {
    static char *page = [] {
        void *p = mmap(nullptr, CALL_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
        return static_cast<char *>(p);
    }();
    return page;
}

void write_all(int fd, const std::string &s) {
    std::size_t done = 0;
    while (done < s.size()) {
        ssize_t n = write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += std::size_t(n);
    }
}

std::string skipped(unsigned long long id, const std::string &why) {
    return nlohmann::json{{"id", id}, {"skipped", why}}.dump();
}

} // namespace

void calling(const char *call) {
    char *page = shared_call();
    std::strncpy(page, call, CALL_MAX - 1);
    page[CALL_MAX - 1] = '\0';
}

std::string current_call() { return shared_call(); }

std::string isolated(const std::function<std::string()> &answer, unsigned long long id, unsigned seconds) {
    calling("the adapter (before any client call)");
    int fds[2];
    if (pipe(fds) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        alarm(seconds);
        rlimit as{CHILD_AS, CHILD_AS};
        setrlimit(RLIMIT_AS, &as);
        std::string line = answer();
        write_all(fds[1], line);
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string out;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buf, std::size_t(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::string call = shared_call();
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGALRM)
            return skipped(id, "official client hung: no answer in " + std::to_string(seconds) + " s in " + call);
        const char *name = sigabbrev_np(sig);
        return skipped(id, std::string("official client crashed: SIG") + (name ? name : std::to_string(sig).c_str())
                + " in " + call);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty())
        return skipped(id, "official client ended without an answer (exit status " + std::to_string(WEXITSTATUS(status))
                + ") in " + call);
    return out;
}

} // namespace icpp
