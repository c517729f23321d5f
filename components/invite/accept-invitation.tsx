"use client";

import { useEffect, useId, useState, useTransition, type FormEvent } from "react";
import { signInAction } from "@/lib/auth/dashboard-actions";
import {
  acceptWithLogin,
  acceptWithPassword,
  fetchInvitation,
  InvitationError,
  requestNewLink,
  type Invitation,
} from "./invitation-api";

type View =
  | { kind: "loading" }
  | { kind: "missing"; message: string }
  | { kind: "invitation"; invitation: Invitation }
  | { kind: "joined"; invitation: Invitation; signInError?: string };

/**
 * After joining, the dashboard signs the user in (next-auth, like the sign-up page does) with the
 * password just typed and opens the project; if that fails, the joined view links to sign-in.
 */
function useSignInAfterJoining(invitation: Invitation | undefined, onFailed: (message: string) => void) {
  const [pending, start] = useTransition();
  const signInTo = (password: string) => {
    if (!invitation) return;
    const form = new FormData();
    form.set("email", invitation.email);
    form.set("password", password);
    form.set("callbackUrl", `/projects/${invitation.project._id}`);
    start(async () => {
      const state = await signInAction({}, form);
      if (state.error) onFailed(state.error);
    });
  };
  return { pending, signInTo };
}

/**
 * The invitation page: shows the project and the invited address; a newcomer sets a password,
 * an existing account signs in; an expired or used link says so and offers a new one.
 */
export function AcceptInvitation({ token }: { token: string }) {
  const [view, setView] = useState<View>({ kind: "loading" });
  const current = view.kind === "invitation" || view.kind === "joined" ? view.invitation : undefined;
  const signIn = useSignInAfterJoining(current, (signInError) => current && setView({ kind: "joined", invitation: current, signInError }));
  const joined = (password: string) => {
    if (!current) return;
    setView({ kind: "joined", invitation: current });
    signIn.signInTo(password);
  };

  useEffect(() => {
    let cancelled = false;
    fetchInvitation(token).then(
      (invitation) => !cancelled && setView({ kind: "invitation", invitation }),
      (error: unknown) =>
        !cancelled &&
        setView({
          kind: "missing",
          message:
            error instanceof InvitationError && error.status === 404
              ? "This invitation link is not valid. It may have been replaced by a newer one or withdrawn."
              : messageOf(error),
        }),
    );
    return () => {
      cancelled = true;
    };
  }, [token]);

  if (view.kind === "loading") return <p className="text-sm text-slate-600" role="status">Loading the invitation...</p>;
  if (view.kind === "missing")
    return (
      <>
        <h1 className="mb-3 text-lg font-semibold">Invitation not found</h1>
        <Alert>{view.message}</Alert>
        <p className="mt-4 text-sm text-slate-600">Ask the person who invited you to send a new invitation.</p>
      </>
    );
  const { invitation } = view;
  const projectName = invitation.project.name || invitation.project._id;

  if (view.kind === "joined")
    return (
      <>
        <h1 className="mb-3 text-lg font-semibold">You joined {projectName}</h1>
        <p className="text-sm text-slate-700">
          <strong>{invitation.email}</strong> is now a member of the project.
        </p>
        {signIn.pending && (
          <p className="mt-3 text-sm text-slate-600" role="status">
            Signing you in...
          </p>
        )}
        {view.signInError && (
          <p className="mt-3 text-sm text-slate-600" role="status">
            Signing in did not work ({view.signInError}): sign in to open the project.
          </p>
        )}
        <a
          href={`/signin?callbackUrl=${encodeURIComponent(`/projects/${invitation.project._id}`)}`}
          className="mt-5 inline-block rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2"
        >
          Sign in to open the project
        </a>
      </>
    );

  return (
    <>
      <h1 className="mb-1 text-lg font-semibold">Join {projectName}</h1>
      <p className="mb-5 text-sm text-slate-600">
        Invitation for <strong className="text-slate-900">{invitation.email}</strong>
      </p>
      {invitation.state === "used" && (
        <>
          <Alert>This invitation has already been used.</Alert>
          <p className="mt-4 text-sm text-slate-600">
            If you accepted it, <a className="font-medium text-indigo-700 underline" href="/signin">sign in</a> to open the project.
          </p>
        </>
      )}
      {invitation.state === "withdrawn" && (
        <Alert>This invitation has been withdrawn. Ask the project&apos;s owner to invite you again.</Alert>
      )}
      {invitation.state === "expired" && (
        <>
          <Alert>This invitation has expired.</Alert>
          <NewLinkButton token={token} />
        </>
      )}
      {invitation.state === "valid" &&
        (invitation.has_account ? (
          <SignInAndAccept token={token} invitation={invitation} onJoined={joined} />
        ) : (
          <SignUpAndAccept token={token} onJoined={joined} />
        ))}
    </>
  );
}

function SignUpAndAccept({ token, onJoined }: { token: string; onJoined: (password: string) => void }) {
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [state, setState] = useState<{ pending: boolean; error?: string }>({ pending: false });

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (password.length < 8) return setState({ pending: false, error: "Choose a password of at least 8 characters." });
    setState({ pending: true });
    try {
      await acceptWithPassword(token, password, name);
      onJoined(password);
    } catch (error) {
      setState({ pending: false, error: messageOf(error) });
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <p className="text-sm text-slate-700">Create your Arca account to accept the invitation.</p>
      {state.error && <Alert>{state.error}</Alert>}
      <Field label="Your name (optional)" type="text" autoComplete="name" value={name} onChange={setName} />
      <Field label="Choose a password" type="password" autoComplete="new-password" value={password} onChange={setPassword} hint="At least 8 characters." required />
      <SubmitButton pending={state.pending} label="Create account and join" pendingLabel="Joining..." />
    </form>
  );
}

function SignInAndAccept({ token, invitation, onJoined }: { token: string; invitation: Invitation; onJoined: (password: string) => void }) {
  const [password, setPassword] = useState("");
  const [state, setState] = useState<{ pending: boolean; error?: string }>({ pending: false });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setState({ pending: true });
    try {
      await acceptWithLogin(token, invitation.email, password);
      onJoined(password);
    } catch (error) {
      setState({ pending: false, error: messageOf(error) });
    }
  }

  return (
    <form onSubmit={submit} className="space-y-4" noValidate>
      <p className="text-sm text-slate-700">This address already has an Arca account. Sign in to accept the invitation.</p>
      {state.error && <Alert>{state.error}</Alert>}
      <Field label="E-mail" type="email" autoComplete="email" value={invitation.email} readOnly />
      <Field label="Password" type="password" autoComplete="current-password" value={password} onChange={setPassword} required />
      <SubmitButton pending={state.pending} label="Sign in and join" pendingLabel="Joining..." />
    </form>
  );
}

function NewLinkButton({ token }: { token: string }) {
  const [state, setState] = useState<{ pending: boolean; sent?: string; error?: string }>({ pending: false });
  if (state.sent)
    return (
      <p className="mt-4 rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800" role="status">
        {state.sent} Check your inbox.
      </p>
    );
  return (
    <div className="mt-4 space-y-3">
      {state.error && <Alert>{state.error}</Alert>}
      <button
        type="button"
        disabled={state.pending}
        onClick={async () => {
          setState({ pending: true });
          try {
            const { message } = await requestNewLink(token);
            setState({ pending: false, sent: message });
          } catch (error) {
            setState({ pending: false, error: messageOf(error) });
          }
        }}
        className={buttonClass}
      >
        {state.pending ? "Sending..." : "Send me a new link"}
      </button>
    </div>
  );
}

function Field(props: {
  label: string;
  type: string;
  autoComplete: string;
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  required?: boolean;
  hint?: string;
}) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-slate-800">
        {props.label}
      </label>
      <input
        id={id}
        type={props.type}
        autoComplete={props.autoComplete}
        value={props.value}
        readOnly={props.readOnly}
        required={props.required}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(event) => props.onChange?.(event.target.value)}
        className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm shadow-sm read-only:bg-slate-100 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500"
      />
      {props.hint && (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-500">
          {props.hint}
        </p>
      )}
    </div>
  );
}

const buttonClass =
  "w-full rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2";

function SubmitButton({ pending, label, pendingLabel }: { pending: boolean; label: string; pendingLabel: string }) {
  return (
    <button type="submit" disabled={pending} className={buttonClass}>
      {pending ? pendingLabel : label}
    </button>
  );
}

function Alert({ children }: { children: React.ReactNode }) {
  return (
    <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
      {children}
    </p>
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong. Try again.";
}
