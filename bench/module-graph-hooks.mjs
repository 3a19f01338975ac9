// Module customization hooks for module-graph.mjs: reports every URL the ESM loader loads (files,
// node: builtins, packages) to the main thread through the port it was registered with.
let port;

/** Receives the MessagePort from `register(…, { data: { port } })`. */
export function initialize(data) {
  port = data.port;
}

/** Passes the load through and reports its URL and format. */
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  port.postMessage({ url, format: result.format ?? null });
  return result;
}
