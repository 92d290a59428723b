// Stands in for VS Code's webview API in the bench harness: records every posted message and
// persists setState in sessionStorage so a reload behaves like a restored webview. Also records
// CSP violations so the bench can prove the panel runs under the production policy.
(() => {
  const KEY = 'cortex-harness-state';
  const harness = { posted: [], csp: [], stateWrites: 0, warnings: [] };
  window.__cortexHarness = harness;
  window.cortexPanelPerf = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    harness.csp.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
  });
  const warn = console.warn.bind(console);
  console.warn = (...args) => {
    harness.warnings.push(args.map(String).join(' '));
    warn(...args);
  };
  let acquired = false;
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi may only be called once');
    acquired = true;
    return {
      postMessage: (message) => harness.posted.push(JSON.parse(JSON.stringify(message))),
      getState: () => {
        const raw = sessionStorage.getItem(KEY);
        return raw ? JSON.parse(raw) : undefined;
      },
      setState: (state) => {
        harness.stateWrites++;
        sessionStorage.setItem(KEY, JSON.stringify(state));
      },
    };
  };
})();
