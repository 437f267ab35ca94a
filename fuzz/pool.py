"""The runners, kept running across batches: one harness Session each, batches exchanged in parallel."""

import queue

from harness.api import Outcome, RunnerResult, Session, StartError, StderrLog, start_threads, unsupported



class Pool:
    def __init__(self, configs, corpus_version, timeout, start_timeout, window, log_dir):
        self.configs = configs
        self.restarts = {c.name: 0 for c in configs}
        self.info = {}
        self._logs = [StderrLog(log_dir / f"{c.name}.stderr.log") for c in configs]
        self._sessions = [Session(c, corpus_version, timeout, start_timeout, window, log)
                          for c, log in zip(configs, self._logs)]
        self._jobs = [queue.Queue() for _ in configs]
        self._done = queue.Queue()
        self._threads = start_threads([lambda i=i: self._work(i) for i in range(len(configs))], daemon=True)
        results = self._all(("open", None))
        failed = [f"{c.name}: {r}" for c, r in zip(configs, results) if isinstance(r, str)]
        if failed:
            self.close()
            raise StartError("; ".join(failed))

    def exchange(self, ops_by_runner):
        """{runner name: [Op]} -> {runner name: {op.key: Outcome}}; every runner works at the same time."""
        jobs = [("exchange", ops_by_runner.get(c.name, [])) for c in self.configs]
        return {c.name: r for c, r in zip(self.configs, self._all(jobs))}

    def close(self):
        self._all(("close", None))
        for q in self._jobs:
            q.put(None)
        for log in self._logs:
            log.close()

    def _all(self, jobs):
        jobs = jobs if isinstance(jobs, list) else [jobs] * len(self.configs)
        for q, job in zip(self._jobs, jobs):
            q.put(job)
        answers = dict(self._done.get() for _ in self.configs)
        errors = [a for a in answers.values() if isinstance(a, BaseException)]
        if errors:
            raise errors[0]     # a harness bug, not a runner fault (those are Outcomes)
        return [answers[i] for i in range(len(self.configs))]

    def _work(self, i):
        session, name = self._sessions[i], self.configs[i].name
        while True:
            job = self._jobs[i].get()
            if job is None:
                return
            what, ops = job
            try:
                if what == "open":
                    result = RunnerResult(name)
                    try:
                        session.open(result)
                        self.info[name] = result.info
                        answer = None
                    except StartError as e:
                        answer = str(e)
                elif what == "close":
                    session.close()
                    answer = None
                else:
                    answer = self._exchange(session, name, ops)
            except BaseException as e:
                answer = e
            self._done.put((i, answer))

    def _exchange(self, session, name, ops):
        result = RunnerResult(name)
        sent = []
        for op in ops:
            why = unsupported(op, self.info[name]["capabilities"])
            if why:
                result.outcomes[op.key] = Outcome("skip", f"not sent: {why}")
            else:
                sent.append(op)
        session.exchange(sent, result)
        self.restarts[name] += result.restarts
        return result.outcomes
