#include "child_process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace bvi::bench {

ChildResult run_child(const std::vector<std::string>& argv, bool capture_stdout) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipe_fd[2] = {-1, -1};
  if (capture_stdout && ::pipe(pipe_fd) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));

  ChildResult r;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork: " + std::string(std::strerror(errno)));
  if (pid == 0) {
    const int out = capture_stdout ? pipe_fd[1] : ::open("/dev/null", O_WRONLY);
    ::dup2(out, STDOUT_FILENO);
    if (capture_stdout) {
      ::close(pipe_fd[0]);
      ::close(pipe_fd[1]);
    }
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  if (capture_stdout) {
    ::close(pipe_fd[1]);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(pipe_fd[0], buf, sizeof buf);
      if (n > 0) r.out.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipe_fd[0]);
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) throw std::runtime_error("wait4: " + std::string(std::strerror(errno)));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace bvi::bench
