"use client";

import { useActionState } from "react";
import { signInAction, type SignInState } from "@/lib/auth/dashboard-actions";
import { Alert, Button, TextField } from "@/components/ui";

/** E-mail and password through next-auth's credentials provider (a server action). */
export function SignInForm({ callbackUrl, notice }: { callbackUrl?: string; notice?: string }) {
  const [state, action, pending] = useActionState<SignInState, FormData>(signInAction, {});
  return (
    <form action={action} className="space-y-4" noValidate>
      {notice && !state.error && <Alert tone="info">{notice}</Alert>}
      {state.error && <Alert>{state.error}</Alert>}
      <input type="hidden" name="callbackUrl" value={callbackUrl ?? "/projects"} />
      <TextField label="E-mail" name="email" type="email" autoComplete="email" required autoFocus={!state.email} defaultValue={state.email} />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" required autoFocus={!!state.email} />
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in..." : "Sign in"}
      </Button>
    </form>
  );
}
