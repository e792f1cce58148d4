// The simulation worker's first script (a module worker the page starts
// from this file; web/src/platform/worker.rs). The page posts the worker's glue URL
// and its compiled wasm module once; every message after that is a request
// for `lblab_worker_message`, and those that arrive before the module is
// ready wait here in order. A start-up that fails is rethrown outside the
// promise, so the worker's `onerror` fires on the page.
//
// A file of its own rather than a script built in a Blob: Chrome takes time
// in proportion to the page's address to make a blob: URL (365 ms for a
// link of a megabyte), and the page's policy then needs no blob: workers.
const queue = [];
let handle = null;
self.onmessage = (e) => {
  const d = e.data;
  if (d && d.boot) {
    import(d.boot.glue)
      .then((glue) => glue.default({ module_or_path: d.boot.module }).then(() => {
        handle = glue.lblab_worker_message;
        for (const q of queue.splice(0)) handle(q);
      }))
      .catch((err) => setTimeout(() => { throw err; }));
    return;
  }
  if (handle) handle(d);
  else queue.push(d);
};
