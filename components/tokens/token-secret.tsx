"use client";

import { useEffect, useRef, useState } from "react";
import { Alert, Button } from "@/components/ui";

/** A new token's secret, shown once, with a copy button (falls back to selecting the text). */
export function TokenSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<"yes" | "failed" | undefined>();

  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      input.current?.select();
      setCopied("failed");
    }
  }

  return (
    <div className="space-y-3 rounded-lg border border-emerald-200 bg-emerald-50 p-4" data-testid="token-secret-panel">
      <p className="text-sm font-medium text-emerald-900">Token &quot;{name}&quot; created.</p>
      <Alert tone="warning">Copy the secret now: it is shown only once and Arca keeps only a hash of it.</Alert>
      <div>
        <label htmlFor="token-secret" className="block text-xs font-medium text-slate-700">
          Secret
        </label>
        <div className="mt-1 flex flex-col gap-2 sm:flex-row">
          <input
            id="token-secret"
            ref={input}
            readOnly
            value={secret}
            onFocus={(e) => e.target.select()}
            className="block w-full min-w-0 rounded-md border border-slate-300 bg-white px-3 py-2 font-mono text-xs"
          />
          <Button onClick={() => void copy()}>{copied === "yes" ? "Copied" : "Copy"}</Button>
        </div>
        <p className="mt-1 text-xs text-slate-600" aria-live="polite">
          {copied === "yes" ? "Copied to the clipboard." : copied === "failed" ? "Copying is not allowed here: the secret is selected, press Ctrl+C." : ""}
        </p>
      </div>
      <p className="text-xs text-slate-600">
        Send it as <span className="font-mono">Authorization: Token &lt;secret&gt;</span>.
      </p>
      <Button variant="secondary" onClick={onDone}>
        Done
      </Button>
    </div>
  );
}
