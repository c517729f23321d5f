/**
 * What a fast-door handler returns after writing its answer straight to the Node response:
 * @hono/node-server then leaves the response alone. `headers` are for the middleware that looks
 * at the answer afterwards (usage metering reads Content-Length and Content-Type); they are not sent.
 */
export function alreadySent(headers: Record<string, string> = {}): Response {
  const marker = new Response(null, { headers: { ...headers, "x-hono-already-sent": "true" } });
  // node-server's lightweight Response takes a shortcut that ignores the marker; reading any
  // non-header property turns it into a full Response, which takes the path that honours it.
  void marker.type;
  return marker;
}
