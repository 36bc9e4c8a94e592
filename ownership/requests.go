package ownership

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

// AttestationRegistry is the registry in which an attesting namespace records its attestations.
const AttestationRegistry = "domain-attestations"

// attestationSchema is the schema of the attestation registry's records.
var attestationSchema = map[string]any{
	"type":     "object",
	"required": []any{"domain", "namespace_id", "request_id", "attested_at"},
	"properties": map[string]any{
		"domain":       map[string]any{"type": "string"},
		"namespace_id": map[string]any{"type": "string"},
		"request_id":   map[string]any{"type": "string"},
		"attested_at":  map[string]any{"type": "string", "format": "date-time"},
	},
}

// requestAttestation records a pending delegated request of the namespace to a self-verified
// target for the domain and notifies the target's members. A pending request for the same
// namespace and domain is returned as it is (Created false), also when another caller made it
// at the same moment: the unique index on pending requests decides, and the loser reads the
// winner's row.
func (v *Service) requestAttestation(ctx context.Context, in Generate, txt string) (Generated, error) {
	if strings.TrimSpace(in.Target) == "" {
		return Generated{}, refuse(Invalid, nil, "Invalid input: target_namespace is required for request_other_namespace")
	}
	targetID, err := v.store.ResolveNamespace(ctx, in.Target)
	if errors.Is(err, directory.ErrNotFound) {
		return Generated{}, refuse(NotFound, err, "Target namespace not found")
	}
	if err != nil {
		return Generated{}, err
	}
	if targetID == in.NamespaceID {
		return Generated{}, refuse(Invalid, nil, "A namespace cannot attest its own domain; use self_dns or self_http")
	}
	var out Generated
	err = v.store.InTx(ctx, func(tx *store.Tx) error {
		if err := stillMember(tx, in.NamespaceID, in.By.Principal()); err != nil {
			return err
		}
		// Refusals of the rule are 400 like the other unmet conditions of generate-dns-txt.
		if err := checkDelegation(tx, targetID, in.Domain, false); errors.Is(err, ErrTargetNotSelfVerified) {
			return refuse(Invalid, err, msgTargetNotSelfVerified)
		} else if errors.Is(err, ErrNotDelegable) {
			return refuse(Invalid, err, "Domain "+in.Domain+" "+msgNotDelegable)
		} else if err != nil {
			return err
		}
		for attempt := 0; ; attempt++ {
			r, found, err := tx.PendingRequest(in.NamespaceID, in.Domain)
			if err != nil {
				return err
			}
			if found {
				out = Generated{TXT: r.TXT, Request: &r}
				return nil
			}
			if attempt == 3 {
				return refuse(Conflict, directory.ErrConflict, "Conflict: the pending request for "+in.Domain+" kept changing; try again")
			}
			// A concurrent insert of the same pending request makes this one do nothing
			// (Postgres waits for the other transaction first), and the loop reads that request.
			r, inserted, err := tx.InsertPendingRequest(in.NamespaceID, targetID, in.Domain, txt, in.By.ID)
			if err != nil {
				return err
			}
			if inserted {
				out = Generated{TXT: r.TXT, Created: true, Request: &r}
				return notifyMembers(tx, targetID, r, store.RequestPending, in.By.Email, "Domain verification request",
					fmt.Sprintf("Namespace %s asks you to attest that it owns %s.", in.NamespaceID, in.Domain))
			}
		}
	})
	return out, err
}

// checkDelegation applies the rule of delegated requests, when one is made and again when it
// is accepted: the target must be self-verified (ErrTargetNotSelfVerified), and the domain must
// be in the global registry or a subdomain of the target's self-verified domain
// (ErrNotDelegable): an attester vouches only for what the operator allowed or what it owns.
// lock (at acceptance) locks the target's namespace row first, so that a concurrent removal of
// its verification waits for the transaction (or the transaction sees it), and the allow-list
// entries it relies on, so that a concurrent disallow waits too.
func checkDelegation(tx *store.Tx, targetID, domain string, lock bool) error {
	if lock {
		if err := tx.LockNamespace(targetID); err != nil {
			return err
		}
	}
	self, err := tx.SelfVerifiedDomain(targetID)
	if err != nil {
		return err
	}
	if self == "" {
		return ErrTargetNotSelfVerified
	}
	if strings.HasSuffix(domain, "."+self) {
		return nil
	}
	ok, err := tx.DomainAllowed(domain, lock)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotDelegable
	}
	return nil
}

// notifyMembers writes one notification of the event about r to every member of the namespace.
func notifyMembers(tx *store.Tx, namespaceID string, r store.Request, event, actor, title, message string) error {
	emails, err := tx.MemberEmails(namespaceID)
	if err != nil {
		return err
	}
	md := map[string]any{"request_id": r.RequestID, "domain": r.Domain, "namespace_id": r.NamespaceID,
		"target_namespace_id": r.TargetNamespaceID, "status": r.Status}
	for _, e := range emails {
		if err := tx.AddNotification(store.Notification{RequestID: r.RequestID, NamespaceID: r.NamespaceID,
			TargetNamespaceID: r.TargetNamespaceID, RecipientEmail: e, ActorEmail: actor, Domain: r.Domain, EventType: event,
			Title: title, Message: message, Metadata: md}); err != nil {
			return err
		}
	}
	return nil
}

// pendingFor loads a request and requires the user to be a member of its target namespace and
// the request to be pending.
func (v *Service) pendingFor(ctx context.Context, requestID string, by store.User) (store.Request, error) {
	r, err := v.store.GetRequest(ctx, requestID)
	if errors.Is(err, directory.ErrNotFound) {
		return r, refuse(NotFound, err, "Verification request not found")
	}
	if err != nil {
		return r, err
	}
	role, err := v.store.MemberRole(ctx, r.TargetNamespaceID, by.ID)
	if err != nil {
		return r, err
	}
	if role == "" {
		return r, refuse(Forbidden, nil, "Forbidden: only the owner or a delegate of the target namespace may decide this request")
	}
	if r.Status != store.RequestPending {
		return r, refuse(Conflict, ErrNotPending, "Conflict: the request is "+r.Status+", no longer pending")
	}
	return r, nil
}

// lockPending locks the request in tx and requires it to be still pending.
func lockPending(tx *store.Tx, requestID string) (store.Request, error) {
	r, err := tx.LockRequest(requestID)
	if errors.Is(err, directory.ErrNotFound) {
		return r, refuse(NotFound, err, "Verification request not found")
	}
	if err != nil {
		return r, err
	}
	if r.Status != store.RequestPending {
		return r, refuse(Conflict, ErrNotPending, "Conflict: "+ErrNotPending.Error())
	}
	return r, nil
}

// Accept accepts a pending request on behalf of a member of its target namespace (byDID: the
// member's did:web), in one transaction: with the request locked, the delegation rule holds
// again (the target may have lost its own verification, or the domain its allow-list entry,
// since the request was made); the target's registry domain-attestations (made on first use)
// gets an attestation record; the requester gets the domain through a request_other_namespace
// source; the requester's members are notified. A refusal writes nothing.
func (v *Service) Accept(ctx context.Context, requestID string, by store.User, byDID string) (store.Request, error) {
	pending, err := v.pendingFor(ctx, requestID, by)
	if err != nil {
		return store.Request{}, err
	}
	var out store.Request
	err = v.store.InTx(ctx, func(tx *store.Tx) error {
		r, err := lockPending(tx, requestID)
		if err != nil {
			return err
		}
		switch err := checkDelegation(tx, r.TargetNamespaceID, r.Domain, true); {
		case errors.Is(err, ErrTargetNotSelfVerified):
			return refuse(Conflict, err, "Conflict: this namespace is no longer self-verified, so it cannot attest; verify its own domain again first. Nothing was written")
		case errors.Is(err, ErrNotDelegable):
			return refuse(Conflict, err, "Conflict: domain "+pending.Domain+" "+msgNotDelegable+". Nothing was written")
		case err != nil:
			return err
		}
		// The decider's role, read after checkDelegation locked the target namespace.
		if err := stillMember(tx, r.TargetNamespaceID, by.Principal()); err != nil {
			return err
		}
		var reg directory.SealedRegistry
		switch a, err := tx.RegistryForWrite(r.TargetNamespaceID, AttestationRegistry, store.Principal{}); {
		case errors.Is(err, directory.ErrNotFound):
			if reg, _, err = tx.CreateRegistry(r.TargetNamespaceID, byDID, directory.RegistryInput{RegistryName: AttestationRegistry,
				Description: "Domains this namespace attests for other namespaces", Tag: directory.TagCustom, Schema: attestationSchema}); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			reg = a.SealedRegistry
		}
		regID := reg.RegistryID
		added, err := tx.AddRecordsTo(reg, byDID, []directory.RecordInput{{
			RecordName:  requestID,
			Description: fmt.Sprintf("%s attests that %s owns %s", r.TargetNamespaceID, r.NamespaceID, r.Domain),
			Details: map[string]any{"domain": r.Domain, "namespace_id": r.NamespaceID, "request_id": requestID,
				"attested_at": proof.FormatTime(v.now().UTC().Truncate(time.Millisecond))},
		}})
		if err != nil {
			return err
		}
		switch err := tx.ClaimDomain(r.NamespaceID, r.Domain, store.MethodDelegated, requestID, v.now().Add(v.cfg.Interval)); {
		case errors.Is(err, store.ErrDomainTaken):
			return refuse(Conflict, err, "Conflict: the domain is already verified by another namespace")
		case errors.Is(err, store.ErrNamespaceHasDomain):
			return refuse(Conflict, err, "Conflict: the requesting namespace already has another verified domain")
		case err != nil:
			return err
		}
		if err := tx.DecideRequest(requestID, store.RequestAccepted, by.ID, regID, added[0].RecordID); err != nil {
			return err
		}
		r.Status, r.RegistryID, r.RecordID = store.RequestAccepted, regID, added[0].RecordID
		out = r
		return notifyMembers(tx, r.NamespaceID, r, store.RequestAccepted, by.Email, "Domain verification accepted",
			fmt.Sprintf("Namespace %s attested that you own %s.", r.TargetNamespaceID, r.Domain))
	})
	return out, err
}

// Reject declines a pending request on behalf of a member of its target namespace and notifies
// the requester's members.
func (v *Service) Reject(ctx context.Context, requestID string, by store.User) (store.Request, error) {
	if _, err := v.pendingFor(ctx, requestID, by); err != nil {
		return store.Request{}, err
	}
	var out store.Request
	err := v.store.InTx(ctx, func(tx *store.Tx) error {
		r, err := lockPending(tx, requestID)
		if err != nil {
			return err
		}
		if err := stillMember(tx, r.TargetNamespaceID, by.Principal()); err != nil {
			return err
		}
		if err := tx.DecideRequest(requestID, store.RequestRejected, by.ID, "", ""); err != nil {
			return err
		}
		r.Status = store.RequestRejected
		out = r
		return notifyMembers(tx, r.NamespaceID, r, store.RequestRejected, by.Email, "Domain verification rejected",
			fmt.Sprintf("Namespace %s declined to attest that you own %s.", r.TargetNamespaceID, r.Domain))
	})
	return out, err
}

// stillMember requires, in a write's own transaction and after the locks that order it, that by
// is still the owner or a delegate of the namespace: the server authorized the request before
// its checks ran (a DNS or HTTP check can take seconds), and a role lost, a key revoked or a
// user disabled since then refuses the write. It locks the namespace's row until the
// transaction ends. The directory's own writes (by without a user: the sweep) are not checked.
func stillMember(tx *store.Tx, namespaceID string, by store.Principal) error {
	if by.UserID == "" {
		return nil
	}
	a, err := tx.NamespaceForWrite(namespaceID, by, true)
	if err != nil {
		return err
	}
	return a.WriteNamespace(false)
}
