"use client";

import { useState, useTransition } from "react";
import { ApiError, apiFetch, describeError } from "@/lib/client/api";
import { signInAction } from "@/lib/auth/dashboard-actions";
import { Alert, Button, TextField } from "@/components/ui";

/**
 * Sign-up in two steps, as the API has them: e-mail and password (a code is mailed), then the
 * mailed code (12 characters, shown as XXXX-XXXX-XXXX; dashes and case do not matter). The code
 * goes with the e-mail, so wrong tries count against it and a few void it. Once confirmed, the user is signed in with the same credentials.
 */
export function SignUpForm() {
  const [step, setStep] = useState<"account" | "code">("account");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState<ApiError | Error | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [signingIn, startSignIn] = useTransition();

  async function requestCode(event?: React.FormEvent) {
    event?.preventDefault();
    setError(undefined);
    setNotice(undefined);
    setBusy(true);
    try {
      const answer = await apiFetch<{ message: string }>("/api/user/", { method: "POST", json: { email, password } });
      setNotice(answer?.message ?? "Check your email for confirmation code");
      setStep("code");
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }

  async function confirm(event: React.FormEvent) {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const { sessionId } = await apiFetch<{ sessionId: string }>("/api/user/", {
        method: "POST",
        action: "confirm",
        json: { code: code.trim(), email },
      });
      // The confirmation opens an API session the dashboard does not use: end it, then sign in.
      await apiFetch("/api/user/", { method: "POST", action: "logout", headers: { authorization: `SessionId ${sessionId}` } }).catch(() => {});
      const form = new FormData();
      form.set("email", email);
      form.set("password", password);
      form.set("callbackUrl", "/projects");
      startSignIn(async () => {
        const state = await signInAction({}, form);
        if (state.error) setError(new Error(`Your account is confirmed, but signing in failed: ${state.error}`));
      });
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (property: string) => (error instanceof ApiError ? error.errorFor(property) : undefined);
  const shown = step === "code" ? ["code"] : ["email", "password"];
  // Property errors show beside their field; anything else (409 "User already exists.") on top.
  const generalError =
    error && !(error instanceof ApiError && error.errors.length && error.errors.every((e) => shown.includes(e.property ?? "")))
      ? describeError(error)
      : undefined;

  if (step === "code")
    return (
      <form onSubmit={confirm} className="space-y-4">
        {notice && <Alert tone="info">{notice}. We sent a 12-character code to {email}.</Alert>}
        {generalError && <Alert>{generalError}</Alert>}
        <TextField
          label="Confirmation code"
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="characters"
          spellCheck={false}
          placeholder="XXXX-XXXX-XXXX"
          maxLength={16}
          required
          autoFocus
          value={code}
          onChange={(e) => setCode(e.target.value.toUpperCase().replace(/[^0-9A-Z -]/g, ""))}
          error={fieldError("code")}
        />
        <Button type="submit" className="w-full" disabled={busy || signingIn || code.replace(/[\s-]/g, "").length !== 12}>
          {busy || signingIn ? "Confirming..." : "Confirm and sign in"}
        </Button>
        <div className="flex flex-wrap justify-between gap-2 text-sm">
          <button type="button" className="text-indigo-700 underline-offset-2 hover:underline" onClick={() => setStep("account")}>
            Change e-mail
          </button>
          <button type="button" className="text-indigo-700 underline-offset-2 hover:underline" disabled={busy} onClick={() => void requestCode()}>
            Send a new code
          </button>
        </div>
      </form>
    );

  return (
    <form onSubmit={requestCode} className="space-y-4">
      {generalError && <Alert>{generalError}</Alert>}
      <TextField
        label="E-mail"
        name="email"
        type="email"
        autoComplete="email"
        required
        autoFocus
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={fieldError("email")}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={fieldError("password")}
      />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Sending code..." : "Create account"}
      </Button>
    </form>
  );
}
