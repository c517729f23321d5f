"use client";

import { useEffect, useId, useRef } from "react";
import { describeError } from "@/lib/client/api";
import dynamic from "next/dynamic";

// CodeMirror is loaded only on pages that show a JSON box: it stays out of sign-in and the rest.
const JsonEditor = dynamic(() => import("./json-editor").then((m) => m.JsonEditor), {
  ssr: false,
  loading: () => <div className="mt-1 h-16 animate-pulse rounded-md border border-slate-300 bg-white" aria-hidden />,
});

/** The dashboard's few building blocks: consistent, labelled, keyboard-usable. */
type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

const buttonStyles: Record<ButtonVariant, string> = {
  primary: "bg-indigo-600 text-white hover:bg-indigo-500 disabled:bg-indigo-300",
  secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50 disabled:text-slate-400",
  danger: "bg-red-600 text-white hover:bg-red-500 disabled:bg-red-300",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400",
};

export function Button({
  variant = "primary",
  className = "",
  ...props
}: React.ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant }) {
  return <button type="button" {...props} className={buttonClass(variant, className)} />;
}

/** A button's look, for links that act as buttons (a download is a navigation, not a click handler). */
export function buttonClass(variant: ButtonVariant = "primary", className = ""): string {
  return `inline-flex items-center justify-center gap-2 rounded-md px-3.5 py-2 text-sm font-medium shadow-sm transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600 disabled:cursor-not-allowed ${buttonStyles[variant]} ${className}`;
}

export const inputClass =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-slate-400 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 aria-[invalid=true]:border-red-500 disabled:bg-slate-100";

/** A labelled input with an optional hint and error, wired with aria-describedby. */
export function TextField({
  label,
  hint,
  error,
  className = "",
  ...props
}: React.InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: React.ReactNode; error?: string }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className={className}>
      <label htmlFor={props.id ?? id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <input
        id={props.id ?? id}
        {...props}
        aria-invalid={error ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(" ") || undefined}
        className={`mt-1 ${inputClass}`}
      />
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="mt-1 text-xs text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}

export function Alert({ tone = "error", children }: { tone?: "error" | "success" | "info" | "warning"; children: React.ReactNode }) {
  const styles = {
    error: "border-red-200 bg-red-50 text-red-800",
    success: "border-emerald-200 bg-emerald-50 text-emerald-800",
    info: "border-sky-200 bg-sky-50 text-sky-800",
    warning: "border-amber-200 bg-amber-50 text-amber-900",
  }[tone];
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-md border px-3 py-2 text-sm ${styles}`}>
      {children}
    </div>
  );
}

export function Card({ title, description, children, actions }: { title?: string; description?: React.ReactNode; children: React.ReactNode; actions?: React.ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      {(title || actions) && (
        <div className="mb-4 flex flex-wrap items-start justify-between gap-2">
          <div>
            {title && <h2 className="text-base font-semibold text-slate-900">{title}</h2>}
            {description && <p className="mt-1 text-sm text-slate-500">{description}</p>}
          </div>
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

export function Badge({ tone = "neutral", children }: { tone?: "neutral" | "success" | "warning" | "danger"; children: React.ReactNode }) {
  const styles = {
    neutral: "bg-slate-100 text-slate-700",
    success: "bg-emerald-100 text-emerald-800",
    warning: "bg-amber-100 text-amber-900",
    danger: "bg-red-100 text-red-800",
  }[tone];
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ${styles}`}>{children}</span>;
}

/**
 * A modal confirmation on the native <dialog>: focus moves in and is trapped, Escape cancels,
 * focus returns to the opener on close.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  tone = "danger",
  busy,
  confirmDisabled,
  error,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  tone?: "danger" | "primary";
  busy?: boolean;
  /** E.g. until a typed confirmation matches. */
  confirmDisabled?: boolean;
  /** The failed confirmation's error (a mutation's `error`), shown under the text. */
  error?: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-slate-200 bg-white p-0 shadow-xl backdrop:bg-slate-900/40"
    >
      <div className="p-5">
        <h2 id={titleId} className="text-base font-semibold text-slate-900">
          {title}
        </h2>
        <div className="mt-2 text-sm text-slate-600">
          {children}
          {error ? (
            <div className="mt-3">
              <Alert>{describeError(error)}</Alert>
            </div>
          ) : null}
        </div>
        <div className="mt-5 flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={onCancel} autoFocus>
            Cancel
          </Button>
          <Button variant={tone} onClick={onConfirm} disabled={busy || confirmDisabled}>
            {busy ? "Working..." : confirmLabel}
          </Button>
        </div>
      </div>
    </dialog>
  );
}

/**
 * The box of a typed confirmation ("Type <id> to confirm") inside a ConfirmDialog: Enter confirms
 * once the text matches, as a form's submit would (keyboard users need not Tab to the button).
 */
export function TypedConfirmation({
  id,
  expected,
  typed,
  onTyped,
  onConfirm,
  className = "",
}: {
  id: string;
  expected: string;
  typed: string;
  onTyped: (text: string) => void;
  onConfirm: () => void;
  className?: string;
}) {
  return (
    <>
      <label htmlFor={id} className={`block text-sm font-medium text-slate-700 ${className}`}>
        Type <span className="font-mono">{expected}</span> to confirm
      </label>
      <input
        id={id}
        value={typed}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => onTyped(e.target.value)}
        onKeyDown={(e) => e.key === "Enter" && typed === expected && onConfirm()}
        className={`mt-1 ${inputClass} font-mono`}
      />
    </>
  );
}

/**
 * A labelled JSON editor (CodeMirror, components/json-editor.tsx) with a hint and a list of errors
 * (checked as you type by the caller), wired with aria-labelledby and aria-describedby.
 */
export function JsonField({
  label,
  hint,
  errors = [],
  value,
  onChange,
  rows = 10,
  name,
  disabled,
  placeholder,
}: {
  label: string;
  hint?: React.ReactNode;
  errors?: string[];
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  name?: string;
  disabled?: boolean;
  /** Example content shown while the box is empty (never submitted). */
  placeholder?: string;
}) {
  const id = useId();
  const labelId = `${id}-label`;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors.length ? `${id}-error` : undefined;
  return (
    <div className="min-w-0">
      <label
        id={labelId}
        className="block text-sm font-medium text-slate-700"
        // The editor is a contenteditable, not a labelable element: clicking the label focuses it.
        onClick={(e) => (e.currentTarget.parentElement?.querySelector(".cm-content") as HTMLElement | null)?.focus()}
      >
        {label}
      </label>
      <JsonEditor
        value={value}
        onChange={onChange}
        labelId={labelId}
        describedBy={[hintId, errorId].filter(Boolean).join(" ") || undefined}
        invalid={errors.length > 0}
        rows={rows}
        name={name}
        disabled={disabled}
        placeholder={placeholder}
      />
      {hint && (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      )}
      {errors.length > 0 && (
        <ul id={errorId} className="mt-1 space-y-0.5 text-xs text-red-600" data-testid="json-errors">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A labelled select, like TextField. */
export function SelectField({
  label,
  hint,
  className = "",
  children,
  ...props
}: React.SelectHTMLAttributes<HTMLSelectElement> & { label: string; hint?: React.ReactNode }) {
  const id = useId();
  return (
    <div className={className}>
      <label htmlFor={props.id ?? id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <select id={props.id ?? id} {...props} aria-describedby={hint ? `${id}-hint` : undefined} className={`mt-1 ${inputClass}`}>
        {children}
      </select>
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      )}
    </div>
  );
}
