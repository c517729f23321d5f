"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { ApiError, describeError } from "@/lib/client/api";
import { useInviteMember, useMembers, useRemoveMember, useUpdateMember } from "@/lib/client/hooks";
import { isPendingMember, type Member, type MemberRole } from "@/lib/client/types";
import { Alert, Badge, Button, Card, ConfirmDialog, SelectField, TextField } from "@/components/ui";

type InvitableRole = Exclude<MemberRole, "owner">;

/**
 * The project's people (`_users`): members and pending invitations; owners and admins invite by
 * e-mail, resend, change roles, suspend and remove. The owner's row has no controls.
 */
export function MembersView({ projectId, myEmail, myRole }: { projectId: string; myEmail: string; myRole: MemberRole }) {
  const canManage = myRole !== "member";
  const members = useMembers(projectId);
  const items = members.data?.items ?? [];
  // Owner first, then active members, then pending invitations.
  const rank = (m: Member) => (m.role === "owner" ? 0 : isPendingMember(m) ? 2 : 1);
  const sorted = [...items].sort((a, b) => rank(a) - rank(b) || a._id.localeCompare(b._id));
  const pending = sorted.filter(isPendingMember);
  const active = sorted.filter((m) => !isPendingMember(m));

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_24rem] [&>*]:min-w-0">
      <div className="space-y-6">
        <Card title="Members" description="People with access to this project through the dashboard or their session.">
          {members.isPending && <p className="text-sm text-slate-500">Loading members...</p>}
          {members.isError && <Alert>{describeError(members.error)}</Alert>}
          {active.length > 0 && (
            <ul className="divide-y divide-slate-100" aria-label="Members">
              {active.map((member) => (
                <MemberRow key={member._id} projectId={projectId} member={member} canManage={canManage} isMe={member._id === myEmail.toLowerCase()} />
              ))}
            </ul>
          )}
        </Card>
        <Card title="Pending invitations" description="Invited addresses that have not accepted yet. The link in the mail is valid for 7 days.">
          {members.data && pending.length === 0 && <p className="text-sm text-slate-500">No pending invitations.</p>}
          {pending.length > 0 && (
            <ul className="divide-y divide-slate-100" aria-label="Pending invitations">
              {pending.map((member) => (
                <MemberRow key={member._id} projectId={projectId} member={member} canManage={canManage} isMe={false} />
              ))}
            </ul>
          )}
        </Card>
      </div>
      <div className="space-y-6">
        {canManage ? (
          <InviteForm projectId={projectId} />
        ) : (
          <Card title="Invite people">
            <Alert tone="info">Only the project&apos;s owner or an admin can invite people.</Alert>
          </Card>
        )}
        {myRole !== "owner" && <LeaveProject projectId={projectId} myEmail={myEmail} />}
      </div>
    </div>
  );
}

function InviteForm({ projectId }: { projectId: string }) {
  const invite = useInviteMember(projectId);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<InvitableRole>("member");
  const [done, setDone] = useState<string | undefined>();
  const apiError = invite.error instanceof ApiError ? invite.error : undefined;

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setDone(undefined);
    try {
      const member = await invite.mutateAsync({ _id: email.trim(), role });
      setDone(
        isPendingMember(member)
          ? `Invitation sent to ${member._id}.`
          : `${member._id} already has an Arca account and was added to the project.`,
      );
      setEmail("");
    } catch {
      // Shown from invite.error.
    }
  }

  return (
    <Card title="Invite people" description="Someone with an Arca account is added at once; anyone else gets a link to join.">
      <form onSubmit={submit} className="space-y-4" aria-label="Invite people" noValidate>
        {invite.error && !apiError?.errorFor("_id") && <Alert>{describeError(invite.error)}</Alert>}
        {done && <Alert tone="success">{done}</Alert>}
        <TextField
          label="E-mail address"
          name="invite-email"
          type="email"
          autoComplete="off"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={apiError?.errorFor("_id")}
        />
        <SelectField label="Role" name="invite-role" value={role} onChange={(e) => setRole(e.target.value as InvitableRole)} hint="Admins also manage collections, tokens, members and settings.">
          <option value="member">Member</option>
          <option value="admin">Admin</option>
        </SelectField>
        <Button type="submit" className="w-full" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? "Inviting..." : "Send invitation"}
        </Button>
      </form>
    </Card>
  );
}

function MemberRow({ projectId, member, canManage, isMe }: { projectId: string; member: Member; canManage: boolean; isMe: boolean }) {
  const update = useUpdateMember(projectId);
  const resend = useInviteMember(projectId);
  const remove = useRemoveMember(projectId);
  const [removing, setRemoving] = useState(false);
  // Role changes and suspensions change what someone can do at once: asked first.
  const [changing, setChanging] = useState<{ role: InvitableRole } | { is_active: boolean } | undefined>();
  const [resent, setResent] = useState(false);
  const owner = member.role === "owner";
  const pending = isPendingMember(member);
  // Your own row offers no role, suspend or remove: an admin would lock themselves out by a slip
  // (the Leave card is the way out, and says so).
  const controls = canManage && !owner && !isMe;
  // The dialog shows the update's error while it is open.
  const error = (changing ? undefined : update.error) ?? resend.error;

  return (
    <li className="py-3" data-testid={`member-${member._id}`}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-48 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <span className="break-all font-medium text-slate-900">{member._id}</span>
            {isMe && <span className="text-xs text-slate-500">(you)</span>}
            {owner && <Badge tone="success">Owner</Badge>}
            {pending && <Badge tone="warning">Invitation pending</Badge>}
            {!member.is_active && <Badge tone="danger">Suspended</Badge>}
          </div>
          <p className="text-xs text-slate-500">
            {pending ? "Has not accepted yet" : member.date_joined ? `Joined ${member.date_joined.slice(0, 10)}` : ""}
            {!owner && !controls && ` · ${member.role}`}
          </p>
        </div>
        {controls && (
          <div className="flex flex-wrap items-center gap-2">
            <label className="sr-only" htmlFor={`role-${member._id}`}>
              Role of {member._id}
            </label>
            <select
              id={`role-${member._id}`}
              value={member.role}
              disabled={update.isPending}
              onChange={(e) => setChanging({ role: e.target.value as InvitableRole })}
              className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-xs shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 disabled:bg-slate-100"
            >
              <option value="member">Member</option>
              <option value="admin">Admin</option>
            </select>
            {pending ? (
              <Button
                variant="secondary"
                className="px-2.5 py-1.5 text-xs"
                disabled={resend.isPending}
                aria-label={`Resend invitation to ${member._id}`}
                onClick={() => {
                  setResent(false);
                  resend.mutate({ _id: member._id, role: member.role as InvitableRole }, { onSuccess: () => setResent(true) });
                }}
              >
                {resend.isPending ? "Sending..." : "Resend"}
              </Button>
            ) : (
              <Button
                variant="secondary"
                className="px-2.5 py-1.5 text-xs"
                disabled={update.isPending}
                aria-label={`${member.is_active ? "Suspend" : "Reactivate"} ${member._id}`}
                onClick={() => (member.is_active ? setChanging({ is_active: false }) : update.mutate({ id: member._id, patch: { is_active: true } }))}
              >
                {member.is_active ? "Suspend" : "Reactivate"}
              </Button>
            )}
            <Button
              variant="ghost"
              className="px-2.5 py-1.5 text-xs text-red-700 hover:bg-red-50"
              aria-label={`${pending ? "Withdraw invitation to" : "Remove"} ${member._id}`}
              onClick={() => setRemoving(true)}
            >
              {pending ? "Withdraw" : "Remove"}
            </Button>
          </div>
        )}
      </div>
      {resent && !resend.isPending && (
        <p className="mt-1 text-xs text-emerald-700" role="status">
          A new link was sent; the previous one no longer works.
        </p>
      )}
      {error && (
        <div className="mt-2">
          <Alert>{describeError(error)}</Alert>
        </div>
      )}
      <ConfirmDialog
        open={!!changing}
        title={changing && "role" in changing ? `Make ${member._id} ${changing.role === "admin" ? "an admin" : "a member"}?` : `Suspend ${member._id}?`}
        confirmLabel={changing && "role" in changing ? "Change role" : "Suspend"}
        tone={changing && "role" in changing ? "primary" : "danger"}
        busy={update.isPending}
        error={update.error}
        onCancel={() => {
          update.reset();
          setChanging(undefined);
        }}
        onConfirm={() => changing && update.mutate({ id: member._id, patch: changing }, { onSuccess: () => setChanging(undefined) })}
      >
        <p>
          {changing && "role" in changing
            ? changing.role === "admin"
              ? "Admins also manage collections, tokens, members and settings."
              : "Members work with documents and files but no longer manage collections, tokens, members or settings."
            : "They lose access to this project until reactivated; their invitation and role are kept."}
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={removing}
        title={pending ? "Withdraw this invitation?" : "Remove this member?"}
        confirmLabel={pending ? "Withdraw invitation" : "Remove member"}
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setRemoving(false);
        }}
        onConfirm={() => remove.mutate(member._id, { onSuccess: () => setRemoving(false) })}
      >
        <p>
          {pending ? (
            <>
              The link sent to <span className="font-medium">{member._id}</span> stops working.
            </>
          ) : (
            <>
              <span className="font-medium">{member._id}</span> loses access to this project at once.
            </>
          )}
        </p>
      </ConfirmDialog>
    </li>
  );
}

/** A member or admin leaves (DELETE of their own `_users` record, docs/members.md); the owner cannot. */
function LeaveProject({ projectId, myEmail }: { projectId: string; myEmail: string }) {
  const remove = useRemoveMember(projectId);
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  return (
    <Card title="Leave this project" description="You lose access at once; an owner or admin can invite you again.">
      <Button variant="secondary" className="text-red-700" onClick={() => setAsking(true)}>
        Leave project
      </Button>
      <ConfirmDialog
        open={asking}
        title="Leave this project?"
        confirmLabel="Leave project"
        busy={remove.isPending}
        error={remove.error}
        onCancel={() => {
          remove.reset();
          setAsking(false);
        }}
        onConfirm={() => remove.mutate(myEmail.toLowerCase(), { onSuccess: () => router.push("/projects") })}
      >
        <p>Your membership ends now; the project and its data stay as they are.</p>
      </ConfirmDialog>
    </Card>
  );
}
