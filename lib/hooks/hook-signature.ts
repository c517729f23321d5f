import { createHmac } from "node:crypto";

/**
 * The signatures a delivery carries when its hook has a secret (CONTRACT §8):
 * - `X-Hook-Signature: sha256=<hex HMAC-SHA256 of the body>` with the secret's UTF-8 bytes;
 * - the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`
 *   over `<id>.<timestamp>.<body>`). Its key: a secret in that specification's own form
 *   (`whsec_<base64>`) is decoded as it says; any other secret is used as its UTF-8 bytes, which
 *   its libraries accept as a raw key (`new Webhook(secret, { format: "raw" })`).
 */
export function hookSignatureHeaders(secret: string, operationId: string, body: string, now = new Date()): Record<string, string> {
  if (!secret) return {};
  const timestamp = Math.floor(now.getTime() / 1000).toString();
  const hex = createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex");
  const standard = createHmac("sha256", standardWebhooksKey(secret)).update(`${operationId}.${timestamp}.${body}`).digest("base64");
  return {
    "x-hook-signature": `sha256=${hex}`,
    "webhook-id": operationId,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${standard}`,
  };
}

export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith("whsec_") ? Buffer.from(secret.slice("whsec_".length), "base64") : Buffer.from(secret, "utf8");
}
