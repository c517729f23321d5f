"use client";

import { useTheme } from "next-themes";
import { useEffect, useState } from "react";

const NEXT = { system: "light", light: "dark", dark: "system" } as const;
const LABEL = { system: "System theme", light: "Light theme", dark: "Dark theme" } as const;

/** Cycles system → light → dark; the label says the current one (the server cannot know it). */
export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  const current = (mounted && theme && theme in NEXT ? theme : "system") as keyof typeof NEXT;
  return (
    <button
      type="button"
      onClick={() => setTheme(NEXT[current])}
      title={`${LABEL[current]} (click to change)`}
      aria-label={`${LABEL[current]}: switch to ${LABEL[NEXT[current]].toLowerCase()}`}
      className="rounded-md border border-slate-300 px-2.5 py-1.5 text-sm text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
    >
      <span aria-hidden>{current === "dark" ? "☾" : current === "light" ? "☀" : "◐"}</span>
    </button>
  );
}

/** Opens the keyboard shortcuts list (also on "?"). */
export function ShortcutsButton() {
  return (
    <button
      type="button"
      onClick={() => window.dispatchEvent(new Event("arca:shortcuts"))}
      aria-label="Keyboard shortcuts"
      className="rounded-md border border-slate-300 px-2.5 py-1.5 text-sm text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-indigo-600"
    >
      ?
    </button>
  );
}
