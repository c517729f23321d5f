"use client";

import { useId, useRef, useState } from "react";
import { generateSecret } from "@/lib/client/hook-form";
import { Button, inputClass } from "@/components/ui";

/**
 * The hook's signing secret: hidden until revealed, generated in the browser
 * (`crypto.getRandomValues`), copied to the clipboard (or selected when copying is refused).
 * It travels only in the JSON body of the save, never in a URL.
 */
export function HookSecretField({ value, onChange, error }: { value: string; onChange: (secret: string) => void; error?: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [revealed, setRevealed] = useState(false);
  const [status, setStatus] = useState("");

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setStatus("Secret copied to the clipboard.");
    } catch {
      setRevealed(true);
      requestAnimationFrame(() => input.current?.select());
      setStatus("Copying is not allowed here: the secret is selected, press Ctrl+C.");
    }
  }

  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        Signing secret
      </label>
      <div className="mt-1 flex flex-col gap-2 sm:flex-row">
        <input
          id={id}
          ref={input}
          name="hook-secret"
          type={revealed ? "text" : "password"}
          autoComplete="off"
          spellCheck={false}
          value={value}
          onChange={(e) => {
            setStatus("");
            onChange(e.target.value);
          }}
          placeholder="No secret: deliveries are not signed"
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
          className={`${inputClass} min-w-0 font-mono text-xs`}
        />
        <div className="flex shrink-0 gap-2">
          <Button variant="secondary" className="flex-1 px-2.5 sm:flex-none" aria-pressed={revealed} onClick={() => setRevealed(!revealed)}>
            {revealed ? "Hide" : "Reveal"}
          </Button>
          <Button
            variant="secondary"
            className="flex-1 px-2.5 sm:flex-none"
            onClick={() => {
              onChange(generateSecret());
              setRevealed(true);
              setStatus("A new secret was generated: save the hook, then give it to the receiver.");
            }}
          >
            Generate
          </Button>
          <Button variant="secondary" className="flex-1 px-2.5 sm:flex-none" disabled={!value} onClick={() => void copy()}>
            Copy
          </Button>
        </div>
      </div>
      <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500">
        Signs every delivery (<code>X-Hook-Signature</code> and the Standard Webhooks headers). A <code>whsec_</code> secret works as it is with the
        Standard Webhooks libraries.
      </p>
      {error && (
        <p id={`${id}-error`} className="mt-1 text-xs text-red-600">
          {error}
        </p>
      )}
      <p className="mt-1 text-xs text-slate-600" aria-live="polite" data-testid="secret-status">
        {status}
      </p>
    </div>
  );
}
