"use client";

import { json } from "@codemirror/lang-json";
import { Prec } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import CodeMirror from "@uiw/react-codemirror";
import { useTheme } from "next-themes";
import { useMemo } from "react";

/**
 * CodeMirror for JSON boxes. Tab is left to the browser (indentWithTab off), so Tab and
 * Shift+Tab move focus like in any field: no keyboard trap (WCAG 2.1.2). Indenting stays on
 * Ctrl+] / Ctrl+[ and Enter keeps the indentation. Ctrl+Enter (Cmd+Enter) submits the form
 * the editor is in: apply a filter, save a document.
 */
export function JsonEditor({
  value,
  onChange,
  labelId,
  describedBy,
  invalid,
  rows,
  placeholder,
  disabled,
  name,
}: {
  value: string;
  onChange: (value: string) => void;
  labelId: string;
  describedBy?: string;
  invalid?: boolean;
  rows: number;
  placeholder?: string;
  disabled?: boolean;
  name?: string;
}) {
  const dark = useTheme().resolvedTheme === "dark";
  const extensions = useMemo(
    () => [
      json(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        "aria-labelledby": labelId,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(invalid ? { "aria-invalid": "true" } : {}),
        ...(name ? { "data-name": name } : {}),
      }),
      // Above the default keymap, where Mod-Enter inserts a blank line.
      Prec.highest(
        keymap.of([
        {
          key: "Mod-Enter",
          run: (view) => {
            const form = view.dom.closest("form");
            if (!form) return false;
            form.requestSubmit();
            return true;
          },
        },
        ]),
      ),
    ],
    [labelId, describedBy, invalid, name],
  );
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      extensions={extensions}
      indentWithTab={false}
      editable={!disabled}
      readOnly={disabled}
      placeholder={placeholder}
      theme={dark ? "dark" : "light"}
      minHeight={`${Math.max(2, rows) * 1.25 + 0.75}rem`}
      maxHeight="32rem"
      basicSetup={{ lineNumbers: rows > 3, foldGutter: false, highlightActiveLine: false, highlightActiveLineGutter: false, autocompletion: false, searchKeymap: false }}
      className="arca-json-editor mt-1 overflow-hidden rounded-md border border-slate-300 bg-white font-mono text-xs shadow-sm focus-within:border-indigo-500 focus-within:ring-2 focus-within:ring-indigo-500/30 dark:border-slate-600 dark:bg-slate-900"
      data-invalid={invalid ? "true" : undefined}
    />
  );
}
