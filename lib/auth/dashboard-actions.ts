"use server";

import { AuthError } from "next-auth";
import { signIn, signOut } from "./next-auth";
import { safeRedirect } from "./safe-redirect";

/** Server actions of the dashboard's sign-in forms (next-auth sets the cookie on the response). */
export interface SignInState {
  error?: string;
  /** Echoed back so the form (which React resets after an action) keeps what was typed. */
  email?: string;
}

export async function signInAction(_previous: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "");
  const password = String(form.get("password") ?? "");
  if (!email || !password) return { error: "Enter your e-mail and password.", email };
  try {
    await signIn("credentials", { email, password, redirectTo: safeRedirect(form.get("callbackUrl")) });
    return {};
  } catch (error) {
    // A successful sign-in "throws" Next's redirect; only next-auth's own errors are failures.
    if (error instanceof AuthError) {
      if (error.type === "CredentialsSignin" && (error as { code?: string }).code === "too_many_attempts")
        return { error: "Too many attempts, try again later.", email };
      return { error: error.type === "CredentialsSignin" ? "Wrong credentials provided." : "Sign-in failed. Try again.", email };
    }
    throw error;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/signin" });
}
