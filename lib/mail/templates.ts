/**
 * The mails Arca sends, one renderer per file; this is the single import for callers:
 * `sendMail({ to, ...projectAddedMail(input) })`.
 */
export type { MailContent } from "./mail-layout";
export { signupConfirmationMail } from "./signup-confirmation-mail";
export { projectInvitationMail, type ProjectInvitationInput } from "./project-invitation-mail";
export { projectAddedMail, type ProjectAddedInput } from "./project-added-mail";
