"use client";

import { useEffect, useId, useState } from "react";
import { describeError } from "@/lib/client/api";
import { useCollection, useDocuments } from "@/lib/client/hooks";
import { quickSearchFields, quickSearchFilter } from "@/lib/client/quick-search";
import type { ArcaDocument } from "@/lib/client/types";
import { inputClass } from "@/components/ui";

const DEBOUNCE_MS = 250;
const SHOWN = 10;
/** Keys that usually name a document, tried in this order for the label beside the key. */
const LABEL_KEYS = ["name", "title", "label", "email", "username"];

type Key = string | number;

/** The key an embed holds: as written (`"a1"`), or taken from the document a read resolved it to. */
export function embedKey(value: unknown, field: string): Key | undefined {
  if (typeof value === "string" || typeof value === "number") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const key = (value as Record<string, unknown>)[field];
    if (typeof key === "string" || typeof key === "number") return key;
  }
  return undefined;
}

/**
 * An `embed` property's input (issue 14): a combobox over the linked collection's documents
 * (WAI-ARIA combobox with a listbox popup). Typing asks that collection's list, debounced, with
 * the quick search's filter (case-insensitive substring of `_id`, the embed's field and the
 * string properties); each option shows the key and a label field. Down/Up move, Enter picks,
 * Escape closes; what is typed without picking is kept as the key (the server checks nothing
 * more than that, CONTRACT §4), so an unknown collection still leaves the field usable.
 */
export function EmbedPicker({
  projectId,
  collection,
  field = "_id",
  value,
  onChange,
  id,
  disabled,
  invalid,
  describedBy,
  required,
}: {
  projectId: string;
  collection: string;
  field?: string;
  value: unknown;
  onChange: (key: Key | undefined) => void;
  id: string;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string;
  required?: boolean;
}) {
  const listId = useId();
  const key = embedKey(value, field);
  const [text, setText] = useState(key === undefined ? "" : String(key));
  const [search, setSearch] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  useEffect(() => {
    const timer = setTimeout(() => setSearch(text), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const linked = useCollection(projectId, collection);
  const fields = [...new Set([...quickSearchFields(linked.data?.schema), field])];
  const documents = useDocuments(projectId, collection, { page: 1, perPage: SHOWN, filter: quickSearchFilter(search, fields) }, { enabled: open && !disabled && !!linked.data });
  const options = documents.data?.items ?? [];
  const labelKey = LABEL_KEYS.find((k) => fields.includes(k)) ?? fields.find((f) => f !== "_id" && f !== field);
  const optionId = (index: number) => `${listId}-option-${index}`;

  function pick(document: ArcaDocument) {
    const picked = document[field];
    const next = typeof picked === "string" || typeof picked === "number" ? picked : document._id;
    setText(String(next));
    onChange(next);
    setOpen(false);
    setActive(-1);
  }

  function type(next: string) {
    setText(next);
    setOpen(true);
    setActive(-1);
    onChange(next === "" && !required ? undefined : next);
  }

  const label = (document: ArcaDocument) => {
    const text = labelKey ? document[labelKey] : undefined;
    return typeof text === "string" || typeof text === "number" ? String(text) : "";
  };

  return (
    <div className="relative mt-1">
      <input
        id={id}
        type="text"
        role="combobox"
        aria-expanded={open && options.length > 0}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        disabled={disabled}
        value={text}
        placeholder={`Search ${collection}`}
        onChange={(e) => type(e.target.value)}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setOpen(true);
            setActive((i) => Math.min(options.length - 1, i + 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((i) => Math.max(-1, i - 1));
          } else if (e.key === "Enter" && open && active >= 0 && options[active]) {
            // Picking is not submitting: Enter on an option stays in the form.
            e.preventDefault();
            pick(options[active]);
          } else if (e.key === "Escape" && open) {
            // Closes the list only, not the side panel around the form.
            e.stopPropagation();
            setOpen(false);
            setActive(-1);
          }
        }}
        className={`${inputClass} font-mono`}
      />
      <ul
        id={listId}
        role="listbox"
        aria-label={`Documents of ${collection}`}
        hidden={!open || options.length === 0}
        className="absolute z-10 mt-1 max-h-64 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        {options.map((document, index) => (
          <li
            key={document._id}
            id={optionId(index)}
            role="option"
            aria-selected={index === active}
            // mousedown, not click: the input's blur would close the list before a click lands.
            onMouseDown={(e) => {
              e.preventDefault();
              pick(document);
            }}
            className={`flex cursor-pointer gap-3 px-3 py-1.5 ${index === active ? "bg-indigo-600 text-white" : "hover:bg-slate-100 dark:hover:bg-slate-800"}`}
          >
            <span className="font-mono">{String(document[field] ?? document._id)}</span>
            <span className={index === active ? "text-indigo-100" : "text-slate-500"}>{label(document)}</span>
          </li>
        ))}
      </ul>
      {open && (
        <p className="mt-1 text-xs text-slate-500" aria-live="polite">
          {linked.isError
            ? `${describeError(linked.error)} Type the key.`
            : documents.isError
              ? describeError(documents.error)
              : documents.data && options.length === 0
                ? `No document of ${collection} matches.`
                : documents.data && documents.data.total > SHOWN
                  ? `${SHOWN} of ${documents.data.total} shown: type more to narrow.`
                  : ""}
        </p>
      )}
    </div>
  );
}
