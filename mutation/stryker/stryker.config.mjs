// StrykerJS over the JS runner's codec files; run from the repository root by `make mutation-stryker` (README.md).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "command",
  commandRunner: { command: "sh mutation/stryker/harness-test.sh" },
  coverageAnalysis: "off",           // the command runner reports no coverage: every mutant runs the whole corpus
  mutate: ["runners/js/codec.mjs", "runners/js/igniteExt.mjs", "runners/js/binaryTuple.mjs", "runners/js/frames.mjs"],
  // The sandbox holds only what the harness and the js runner read (not out/, .git or the other runners).
  ignorePatterns: [
    "/*", "!/harness", "!/schema", "!/vectors", "!/runners", "/runners/*", "!/runners/js",
    "!/mutation", "/mutation/*", "!/mutation/stryker", "/mutation/stryker/*", "!/mutation/stryker/harness-test.sh",
  ],
  tempDirName: "out/mutation/stryker-tmp",
  cleanTempDir: true,
  incremental: true,
  incrementalFile: "mutation/stryker/stryker-incremental.json",
  // STRYKER_EVENTS=1 adds a file per tested mutant as it is tested (out/mutation/stryker/events/): survivors can be
  // read while a long run goes on.
  reporters: ["html", "json", "progress", "clear-text", ...(process.env.STRYKER_EVENTS ? ["event-recorder"] : [])],
  eventReporter: { baseDir: "out/mutation/stryker/events" },
  htmlReporter: { fileName: "out/mutation/stryker/index.html" },
  jsonReporter: { fileName: "out/mutation/stryker/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
  concurrency: 2,
  timeoutMS: 10000,
  thresholds: { high: 90, low: 80, break: null },
};
