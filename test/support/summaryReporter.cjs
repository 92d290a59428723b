// Mocha's spec reporter plus the closing line every test stage promises: "N passed, M failed".
const Mocha = require('mocha');

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes = 0, failures = 0, pending = 0 } = runner.stats ?? {};
      // Printed after the spec reporter's epilogue.
      setImmediate(() => console.log(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} pending` : ''}`));
    });
  }
}

module.exports = SummaryReporter;
