"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui";

export const SHORTCUTS: [string, string][] = [
  ["Ctrl+Enter (⌘+Enter)", "In a JSON box: apply the filter, save the document or the definition"],
  ["Tab / Shift+Tab", "Leave a JSON box (Tab does not indent; Ctrl+] and Ctrl+[ do)"],
  ["Escape", "Close the document panel or a dialog"],
  ["?", "Show this list"],
];

/** "?" anywhere outside a text field opens the list of keyboard shortcuts (a native modal dialog). */
export function ShortcutsHelp() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing = target?.closest("input, textarea, select, [contenteditable='true']");
      if (event.key === "?" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        setOpen(true);
      }
    };
    const onOpen = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener("arca:shortcuts", onOpen);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener("arca:shortcuts", onOpen);
    };
  }, []);
  return (
    <dialog
      ref={(dialog) => {
        if (!dialog) return;
        if (open && !dialog.open) dialog.showModal();
        if (!open && dialog.open) dialog.close();
      }}
      aria-labelledby="shortcuts-title"
      onClose={() => setOpen(false)}
      className="m-auto w-[calc(100%-2rem)] max-w-lg rounded-lg border border-slate-200 bg-white p-5 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
    >
      <h2 id="shortcuts-title" className="text-base font-semibold">
        Keyboard shortcuts
      </h2>
      <dl className="mt-3 space-y-2 text-sm">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys} className="grid grid-cols-[11rem_1fr] gap-3">
            <dt>
              <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs">{keys}</kbd>
            </dt>
            <dd className="text-slate-600">{what}</dd>
          </div>
        ))}
      </dl>
      <div className="mt-4 flex justify-end">
        <Button variant="secondary" onClick={() => setOpen(false)} autoFocus>
          Close
        </Button>
      </div>
    </dialog>
  );
}
