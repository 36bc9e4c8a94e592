package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Verification methods (spec, "Domain verification records").
const (
	MethodSelfDNS   = "self_dns"
	MethodSelfHTTP  = "self_http"
	MethodDelegated = "request_other_namespace"

	SourceActive = "active"
	SourceGrace  = "grace"

	RequestPending  = "pending"
	RequestAccepted = "accepted"
	RequestRejected = "rejected"
	RequestRemoved  = "removed"

	// AttestationRegistry is the registry in which an attesting namespace records its attestations.
	AttestationRegistry = "domain-attestations"
)

// Domain errors; each also matches ErrConflict or ErrNotFound.
var (
	ErrDomainTaken        = fmt.Errorf("%w: the domain is already verified by another namespace", ErrConflict)
	ErrNamespaceHasDomain = fmt.Errorf("%w: the namespace already has another verified domain", ErrConflict)
	ErrNotPending         = fmt.Errorf("%w: the request is no longer pending", ErrConflict)
	// ErrDomainNotAllowed: the domain is not (or no longer) in the global registry.
	ErrDomainNotAllowed = fmt.Errorf("%w: the domain is not in the global registry", ErrConflict)
	// ErrTargetNotSelfVerified: the attesting namespace holds no domain through DNS or HTTP.
	ErrTargetNotSelfVerified = fmt.Errorf("%w: the target namespace is not self-verified", ErrConflict)
	// ErrNotDelegable: the domain is neither in the global registry nor a subdomain of the
	// target's self-verified domain, so the target may not vouch for it.
	ErrNotDelegable = fmt.Errorf("%w: the domain is neither in the global registry nor a subdomain of the target namespace's verified domain", ErrConflict)
)

// Challenge is a generated verification value of a namespace for a domain.
type Challenge struct {
	NamespaceID string
	Domain      string
	Method      string
	TXT         string
	CreatedAt   time.Time
}

type challengeRow struct {
	ID          string `gorm:"column:id;primaryKey"`
	NamespaceID string `gorm:"column:namespace_id"`
	Domain      string `gorm:"column:domain"`
	Method      string `gorm:"column:method"`
	TXT         string `gorm:"column:txt"`
	CreatedAt   int64  `gorm:"column:created_at"`
}

func (challengeRow) TableName() string { return "domain_challenges" }

func (r challengeRow) challenge() Challenge {
	return Challenge{NamespaceID: r.NamespaceID, Domain: r.Domain, Method: r.Method, TXT: r.TXT, CreatedAt: msTime(r.CreatedAt)}
}

// EnsureChallenge stores txt as the namespace's verification value for the domain unless one
// exists; it returns the stored challenge and whether it is new.
func (s *Store) EnsureChallenge(ctx context.Context, namespaceID, domain, method, txt string) (Challenge, bool, error) {
	row := challengeRow{ID: newUUID(), NamespaceID: namespaceID, Domain: domain, Method: method, TXT: txt, CreatedAt: s.nowMS()}
	var created bool
	var got challengeRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "namespace_id"}, {Name: "domain"}}, DoNothing: true}).Create(&row)
		if res.Error != nil {
			return translate(res.Error, "challenge")
		}
		created = res.RowsAffected == 1
		return translate(tx.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Take(&got).Error, "challenge")
	})
	return got.challenge(), created, err
}

// Challenges lists a namespace's verification values, newest first.
func (s *Store) Challenges(ctx context.Context, namespaceID string) ([]Challenge, error) {
	var rows []challengeRow
	if err := s.db.WithContext(ctx).Where("namespace_id = ?", namespaceID).Order("created_at DESC, id DESC").Find(&rows).Error; err != nil {
		return nil, translate(err, "challenges")
	}
	out := make([]Challenge, len(rows))
	for i, r := range rows {
		out[i] = r.challenge()
	}
	return out, nil
}

// DomainHolder returns the namespace that holds the verified domain ("" when none).
func (s *Store) DomainHolder(ctx context.Context, domain string) (string, error) {
	var ids []string
	err := s.db.WithContext(ctx).Model(&nsHeadRow{}).Where("domain = ?", domain).Pluck("namespace_id", &ids).Error
	if err != nil || len(ids) == 0 {
		return "", translate(err, "domain holder")
	}
	return ids[0], nil
}

type sourceRow struct {
	ID            string  `gorm:"column:id;primaryKey"`
	NamespaceID   string  `gorm:"column:namespace_id"`
	Domain        string  `gorm:"column:domain"`
	Method        string  `gorm:"column:method"`
	RequestID     *string `gorm:"column:request_id"`
	Status        string  `gorm:"column:status"`
	VerifiedAt    int64   `gorm:"column:verified_at"`
	LastCheckedAt int64   `gorm:"column:last_checked_at"`
	NextCheckAt   int64   `gorm:"column:next_check_at"`
	GraceUntil    *int64  `gorm:"column:grace_until"`
	LastError     string  `gorm:"column:last_error"`
	CreatedAt     int64   `gorm:"column:created_at"`
}

func (sourceRow) TableName() string { return "domain_sources" }

// claimDomainTx gives the namespace the domain and records an active source, in tx.
func (s *Store) claimDomainTx(tx *gorm.DB, namespaceID, domain, method, requestID string, interval time.Duration) error {
	res := tx.Exec(`UPDATE namespaces SET domain = ? WHERE namespace_id = ? AND (domain IS NULL OR domain = ?)`, domain, namespaceID, domain)
	if err := translate(res.Error, "claim domain"); err != nil {
		if IsConflict(err) {
			return ErrDomainTaken
		}
		return err
	}
	if res.RowsAffected == 0 {
		var n int64
		if err := tx.Model(&nsHeadRow{}).Where("namespace_id = ?", namespaceID).Count(&n).Error; err != nil {
			return translate(err, "namespace")
		}
		if n == 0 {
			return fmt.Errorf("namespace %q: %w", namespaceID, ErrNotFound)
		}
		return ErrNamespaceHasDomain
	}
	now := s.nowMS()
	row := sourceRow{ID: newUUID(), NamespaceID: namespaceID, Domain: domain, Method: method, RequestID: nullable(requestID),
		Status: SourceActive, VerifiedAt: now, LastCheckedAt: now, NextCheckAt: now + interval.Milliseconds(), CreatedAt: now}
	err := tx.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "namespace_id"}, {Name: "domain"}, {Name: "method"}},
		DoUpdates: clause.Assignments(map[string]any{"status": SourceActive, "verified_at": now, "last_checked_at": now,
			"next_check_at": row.NextCheckAt, "grace_until": nil, "last_error": "", "request_id": row.RequestID}),
	}).Create(&row).Error
	return translate(err, "verification source")
}

// MarkVerified makes the namespace the holder of the domain through method, atomically: a
// domain held by another namespace is ErrDomainTaken (the unique index decides races), a
// namespace holding another domain is ErrNamespaceHasDomain.
func (s *Store) MarkVerified(ctx context.Context, namespaceID, domain, method string, interval time.Duration) error {
	return s.tx(ctx, func(tx *gorm.DB) error { return s.claimDomainTx(tx, namespaceID, domain, method, "", interval) })
}

// MarkSelfVerified is MarkVerified for verify-domain: in the same transaction it requires the
// domain to be in the global registry (ErrDomainNotAllowed), so that a domain disallowed while
// its check ran is not verified.
func (s *Store) MarkSelfVerified(ctx context.Context, namespaceID, domain, method string, interval time.Duration) error {
	return s.tx(ctx, func(tx *gorm.DB) error {
		ok, err := s.domainAllowedTx(tx, domain, true)
		if err != nil {
			return err
		}
		if !ok {
			return ErrDomainNotAllowed
		}
		return s.claimDomainTx(tx, namespaceID, domain, method, "", interval)
	})
}

// SelfVerifiedDomain returns the namespace's verified domain when it holds it through a self
// source (DNS or HTTP), else "".
func (s *Store) SelfVerifiedDomain(ctx context.Context, namespaceID string) (string, error) {
	return s.selfVerifiedDomainTx(s.db.WithContext(ctx), namespaceID, false)
}

// selfVerifiedDomainTx is SelfVerifiedDomain in tx; lock (Postgres) locks the namespace row
// first, so that a concurrent removal of its verification waits for tx (or tx sees it).
func (s *Store) selfVerifiedDomainTx(tx *gorm.DB, namespaceID string, lock bool) (string, error) {
	if lock && s.dialect == DialectPostgres {
		var ids []string
		// NO KEY UPDATE: it waits for (and holds off) the UPDATE that takes the namespace's domain,
		// but not the key-share locks of rows that merely reference the namespace.
		if err := tx.Raw(`SELECT namespace_id FROM namespaces WHERE namespace_id = ? FOR NO KEY UPDATE`, namespaceID).Scan(&ids).Error; err != nil {
			return "", translate(err, "namespace")
		}
	}
	var ds []string
	err := tx.Raw(`SELECT n.domain FROM namespaces n JOIN domain_sources d
		ON d.namespace_id = n.namespace_id AND d.domain = n.domain
		WHERE n.namespace_id = ? AND d.method IN (?, ?) LIMIT 1`, namespaceID, MethodSelfDNS, MethodSelfHTTP).Scan(&ds).Error
	if err != nil || len(ds) == 0 {
		return "", translate(err, "self verification")
	}
	return ds[0], nil
}

// checkDelegationTx applies the rule of delegated requests, when one is made and again when it
// is accepted: the target must be self-verified (ErrTargetNotSelfVerified), and the domain must
// be in the global registry or a subdomain of the target's self-verified domain
// (ErrNotDelegable): an attester vouches only for what the operator allowed or what it owns.
func (s *Store) checkDelegationTx(tx *gorm.DB, targetID, domain string, lock bool) error {
	self, err := s.selfVerifiedDomainTx(tx, targetID, lock)
	if err != nil {
		return err
	}
	if self == "" {
		return ErrTargetNotSelfVerified
	}
	if strings.HasSuffix(domain, "."+self) {
		return nil
	}
	ok, err := s.domainAllowedTx(tx, domain, lock)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotDelegable
	}
	return nil
}

// Request is a delegated verification request.
type Request struct {
	RequestID         string
	NamespaceID       string // requester
	TargetNamespaceID string // attester
	Domain            string
	TXT               string
	Status            string
	RegistryID        string
	RecordID          string
	CreatedAt         time.Time
}

type requestRow struct {
	RequestID         string  `gorm:"column:request_id;primaryKey"`
	NamespaceID       string  `gorm:"column:namespace_id"`
	TargetNamespaceID string  `gorm:"column:target_namespace_id"`
	Domain            string  `gorm:"column:domain"`
	TXT               string  `gorm:"column:txt"`
	Status            string  `gorm:"column:status"`
	RequestedBy       string  `gorm:"column:requested_by"`
	DecidedBy         *string `gorm:"column:decided_by"`
	RegistryID        *string `gorm:"column:registry_id"`
	RecordID          *string `gorm:"column:record_id"`
	CreatedAt         int64   `gorm:"column:created_at"`
	DecidedAt         *int64  `gorm:"column:decided_at"`
}

func (requestRow) TableName() string { return "verification_requests" }

func (r requestRow) request() Request {
	return Request{RequestID: r.RequestID, NamespaceID: r.NamespaceID, TargetNamespaceID: r.TargetNamespaceID, Domain: r.Domain,
		TXT: r.TXT, Status: r.Status, RegistryID: deref(r.RegistryID), RecordID: deref(r.RecordID), CreatedAt: msTime(r.CreatedAt)}
}

// Notification is a stored message about a delegated request.
type Notification struct {
	ID                string
	RequestID         string
	NamespaceID       string
	TargetNamespaceID string
	RecipientEmail    string
	ActorEmail        string
	Domain            string
	EventType         string
	Title             string
	Message           string
	Metadata          map[string]any
	IsRead            bool
	ReadAt            *time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

type notificationRow struct {
	ID                string  `gorm:"column:id;primaryKey"`
	RequestID         string  `gorm:"column:request_id"`
	NamespaceID       string  `gorm:"column:namespace_id"`
	TargetNamespaceID string  `gorm:"column:target_namespace_id"`
	RecipientEmail    string  `gorm:"column:recipient_email"`
	ActorEmail        *string `gorm:"column:actor_email"`
	Domain            string  `gorm:"column:domain"`
	EventType         string  `gorm:"column:event_type"`
	Title             string  `gorm:"column:title"`
	Message           string  `gorm:"column:message"`
	Metadata          string  `gorm:"column:metadata"`
	IsRead            bool    `gorm:"column:is_read"`
	ReadAt            *int64  `gorm:"column:read_at"`
	CreatedAt         int64   `gorm:"column:created_at"`
	UpdatedAt         int64   `gorm:"column:updated_at"`
}

func (notificationRow) TableName() string { return "notifications" }

func (r notificationRow) notification() (Notification, error) {
	md, err := decodeObject(r.Metadata)
	if err != nil {
		return Notification{}, err
	}
	return Notification{ID: r.ID, RequestID: r.RequestID, NamespaceID: r.NamespaceID, TargetNamespaceID: r.TargetNamespaceID,
		RecipientEmail: r.RecipientEmail, ActorEmail: deref(r.ActorEmail), Domain: r.Domain, EventType: r.EventType,
		Title: r.Title, Message: r.Message, Metadata: md, IsRead: r.IsRead, ReadAt: msTimePtr(r.ReadAt),
		CreatedAt: msTime(r.CreatedAt), UpdatedAt: msTime(r.UpdatedAt)}, nil
}

// notifyMembersTx writes one notification of the event to every member of the namespace.
func (s *Store) notifyMembersTx(tx *gorm.DB, memberNamespace string, r requestRow, event, actor, title, message string) error {
	var emails []string
	if err := tx.Raw(`SELECT u.email FROM namespace_members m JOIN users u ON u.id = m.user_id WHERE m.namespace_id = ? ORDER BY u.email`,
		memberNamespace).Scan(&emails).Error; err != nil {
		return translate(err, "members")
	}
	md, err := canonicalText(map[string]any{"request_id": r.RequestID, "domain": r.Domain, "namespace_id": r.NamespaceID,
		"target_namespace_id": r.TargetNamespaceID, "status": r.Status})
	if err != nil {
		return err
	}
	now := s.nowMS()
	for _, e := range emails {
		row := notificationRow{ID: newUUID(), RequestID: r.RequestID, NamespaceID: r.NamespaceID, TargetNamespaceID: r.TargetNamespaceID,
			RecipientEmail: e, ActorEmail: nullable(actor), Domain: r.Domain, EventType: event, Title: title, Message: message,
			Metadata: md, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(&row).Error; err != nil {
			return translate(err, "notification")
		}
	}
	return nil
}

// CreateRequest records a pending delegated request of the requester namespace to the target
// for the domain and notifies the target's members. The delegation rule must hold
// (ErrTargetNotSelfVerified, ErrNotDelegable). A pending request for the same namespace and
// domain is returned as it is (created false), also when another caller created it at the same
// moment: the unique index on pending requests decides, and the loser reads the winner's row.
func (s *Store) CreateRequest(ctx context.Context, namespaceID, targetID, domain, txt string, by User) (Request, bool, error) {
	var out requestRow
	created := false
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := s.checkDelegationTx(tx, targetID, domain, false); err != nil {
			return err
		}
		for attempt := 0; ; attempt++ {
			var existing []requestRow
			if err := tx.Where("namespace_id = ? AND domain = ? AND status = ?", namespaceID, domain, RequestPending).Find(&existing).Error; err != nil {
				return translate(err, "requests")
			}
			if len(existing) > 0 {
				out = existing[0]
				return nil
			}
			if attempt == 3 {
				return fmt.Errorf("%w: the pending request for %s kept changing; try again", ErrConflict, domain)
			}
			out = requestRow{RequestID: newUUID(), NamespaceID: namespaceID, TargetNamespaceID: targetID, Domain: domain, TXT: txt,
				Status: RequestPending, RequestedBy: by.ID, CreatedAt: s.nowMS()}
			// The conflict target names the partial unique index verification_requests_one_pending;
			// a concurrent insert of the same pending request makes this one do nothing (Postgres
			// waits for the other transaction first), and the loop reads that request.
			res := tx.Exec(`INSERT INTO verification_requests (request_id, namespace_id, target_namespace_id, domain, txt, status,
				requested_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (namespace_id, domain) WHERE status = 'pending' DO NOTHING`,
				out.RequestID, out.NamespaceID, out.TargetNamespaceID, out.Domain, out.TXT, out.Status, out.RequestedBy, out.CreatedAt)
			if res.Error != nil {
				return translate(res.Error, "request")
			}
			if res.RowsAffected == 1 {
				break
			}
		}
		created = true
		return s.notifyMembersTx(tx, targetID, out, RequestPending, by.Email, "Domain verification request",
			fmt.Sprintf("Namespace %s asks you to attest that it owns %s.", namespaceID, domain))
	})
	return out.request(), created, err
}

// GetRequest reads a delegated request.
func (s *Store) GetRequest(ctx context.Context, requestID string) (Request, error) {
	var r requestRow
	if err := s.db.WithContext(ctx).Where("request_id = ?", requestID).Take(&r).Error; err != nil {
		return Request{}, translate(err, "request")
	}
	return r.request(), nil
}

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

// AcceptRequest accepts a pending request in one transaction: it writes an attestation record
// in the target's registry domain-attestations (made on first use), gives the requester the
// domain through a request_other_namespace source, and notifies the requester's members.
func (s *Store) AcceptRequest(ctx context.Context, requestID string, by User, byDID string, interval time.Duration) (Request, error) {
	var out requestRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT * FROM verification_requests WHERE request_id = ?`+s.forUpdate(), requestID).Take(&out).Error; err != nil {
			return translate(err, "request")
		}
		if out.Status != RequestPending {
			return ErrNotPending
		}
		// The target may have lost its own verification, or the domain its allow-list entry,
		// since the request was made.
		if err := s.checkDelegationTx(tx, out.TargetNamespaceID, out.Domain, true); err != nil {
			return err
		}
		var regs []regHeadRow
		if err := tx.Where("namespace_id = ? AND registry_name = ?", out.TargetNamespaceID, AttestationRegistry).Find(&regs).Error; err != nil {
			return translate(err, "attestation registry")
		}
		var regID string
		if len(regs) == 0 {
			h, err := s.createRegistryTx(tx, out.TargetNamespaceID, byDID, RegistryInput{RegistryName: AttestationRegistry,
				Description: "Domains this namespace attests for other namespaces", Tag: TagCustom, Schema: attestationSchema})
			if err != nil {
				return err
			}
			regID = h.RegistryID
		} else {
			regID = regs[0].RegistryID
		}
		added, err := s.addRecordsTx(tx, out.TargetNamespaceID, AttestationRegistry, byDID, []RecordInput{{
			RecordName:  requestID,
			Description: fmt.Sprintf("%s attests that %s owns %s", out.TargetNamespaceID, out.NamespaceID, out.Domain),
			Details: map[string]any{"domain": out.Domain, "namespace_id": out.NamespaceID, "request_id": requestID,
				"attested_at": s.stamp().text},
		}})
		if err != nil {
			return err
		}
		if err := s.claimDomainTx(tx, out.NamespaceID, out.Domain, MethodDelegated, requestID, interval); err != nil {
			return err
		}
		now := s.nowMS()
		out.Status, out.DecidedBy, out.DecidedAt = RequestAccepted, &by.ID, &now
		out.RegistryID, out.RecordID = &regID, &added[0].RecordID
		if err := tx.Model(&requestRow{}).Where("request_id = ?", requestID).Updates(map[string]any{"status": out.Status,
			"decided_by": by.ID, "decided_at": now, "registry_id": regID, "record_id": added[0].RecordID}).Error; err != nil {
			return translate(err, "accept request")
		}
		return s.notifyMembersTx(tx, out.NamespaceID, out, RequestAccepted, by.Email, "Domain verification accepted",
			fmt.Sprintf("Namespace %s attested that you own %s.", out.TargetNamespaceID, out.Domain))
	})
	return out.request(), err
}

// RejectRequest rejects a pending request and notifies the requester's members.
func (s *Store) RejectRequest(ctx context.Context, requestID string, by User) (Request, error) {
	var out requestRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT * FROM verification_requests WHERE request_id = ?`+s.forUpdate(), requestID).Take(&out).Error; err != nil {
			return translate(err, "request")
		}
		if out.Status != RequestPending {
			return ErrNotPending
		}
		now := s.nowMS()
		out.Status = RequestRejected
		if err := tx.Model(&requestRow{}).Where("request_id = ?", requestID).Updates(map[string]any{"status": RequestRejected,
			"decided_by": by.ID, "decided_at": now}).Error; err != nil {
			return translate(err, "reject request")
		}
		return s.notifyMembersTx(tx, out.NamespaceID, out, RequestRejected, by.Email, "Domain verification rejected",
			fmt.Sprintf("Namespace %s declined to attest that you own %s.", out.TargetNamespaceID, out.Domain))
	})
	return out.request(), err
}

// Notifications lists the notifications addressed to email, newest first (unread only when
// unreadOnly).
func (s *Store) Notifications(ctx context.Context, email string, unreadOnly bool) ([]Notification, error) {
	q := s.db.WithContext(ctx).Where("recipient_email = ?", email)
	if unreadOnly {
		q = q.Where("is_read = ?", false)
	}
	var rows []notificationRow
	if err := q.Order("created_at DESC, id DESC").Limit(1000).Find(&rows).Error; err != nil {
		return nil, translate(err, "notifications")
	}
	out := make([]Notification, len(rows))
	for i, r := range rows {
		n, err := r.notification()
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// MarkNotificationRead marks one of email's notifications read (ErrNotFound for anyone else's).
func (s *Store) MarkNotificationRead(ctx context.Context, id, email string) (Notification, error) {
	var row notificationRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ? AND recipient_email = ?", id, email).Take(&row).Error; err != nil {
			return translate(err, "notification")
		}
		if row.IsRead {
			return nil
		}
		now := s.nowMS()
		row.IsRead, row.ReadAt, row.UpdatedAt = true, &now, now
		return translate(tx.Model(&notificationRow{}).Where("id = ?", id).Updates(map[string]any{"is_read": true, "read_at": now, "updated_at": now}).Error, "mark read")
	})
	if err != nil {
		return Notification{}, err
	}
	return row.notification()
}

// MarkAllNotificationsRead marks every unread notification of email read; it returns how many.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, email string) (int64, error) {
	now := s.nowMS()
	res := s.db.WithContext(ctx).Model(&notificationRow{}).Where("recipient_email = ? AND is_read = ?", email, false).
		Updates(map[string]any{"is_read": true, "read_at": now, "updated_at": now})
	return res.RowsAffected, translate(res.Error, "mark all read")
}

// Removal is what RemoveVerification did.
type Removal struct {
	Methods        []string
	RemovedTargets []string
	RemovedEntries int64
	DomainRemoved  bool
	StillVerified  bool
}

// RemoveVerification removes the namespace's verification data for the domain: its sources,
// its generated value, and its pending or accepted delegated requests; the domain leaves the
// namespace when no source remains. ErrNotFound when the pair has no such data.
func (s *Store) RemoveVerification(ctx context.Context, namespaceID, domain string) (Removal, error) {
	var out Removal
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var srcs []sourceRow
		if err := tx.Raw(`SELECT * FROM domain_sources WHERE namespace_id = ? AND domain = ?`+s.forUpdate(), namespaceID, domain).Scan(&srcs).Error; err != nil {
			return translate(err, "sources")
		}
		var reqs []requestRow
		if err := tx.Where("namespace_id = ? AND domain = ? AND status IN ?", namespaceID, domain, []string{RequestPending, RequestAccepted}).
			Find(&reqs).Error; err != nil {
			return translate(err, "requests")
		}
		if len(srcs) == 0 && len(reqs) == 0 {
			return fmt.Errorf("verification data for %s: %w", domain, ErrNotFound)
		}
		seen := map[string]bool{}
		for _, src := range srcs {
			if !seen[src.Method] {
				out.Methods = append(out.Methods, src.Method)
				seen[src.Method] = true
			}
		}
		for _, r := range reqs {
			out.RemovedTargets = append(out.RemovedTargets, r.TargetNamespaceID)
			if !seen[MethodDelegated] {
				out.Methods = append(out.Methods, MethodDelegated)
				seen[MethodDelegated] = true
			}
		}
		res := tx.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Delete(&sourceRow{})
		if res.Error != nil {
			return translate(res.Error, "remove sources")
		}
		out.RemovedEntries += res.RowsAffected
		res = tx.Where("namespace_id = ? AND domain = ?", namespaceID, domain).Delete(&challengeRow{})
		if res.Error != nil {
			return translate(res.Error, "remove challenge")
		}
		out.RemovedEntries += res.RowsAffected
		if len(reqs) > 0 {
			res = tx.Model(&requestRow{}).Where("namespace_id = ? AND domain = ? AND status IN ?", namespaceID, domain,
				[]string{RequestPending, RequestAccepted}).Update("status", RequestRemoved)
			if res.Error != nil {
				return translate(res.Error, "remove requests")
			}
			out.RemovedEntries += res.RowsAffected
		}
		var err error
		out.DomainRemoved, out.StillVerified, err = s.recomputeDomainTx(tx, namespaceID, domain)
		return err
	})
	if out.Methods == nil {
		out.Methods = []string{}
	}
	if out.RemovedTargets == nil {
		out.RemovedTargets = []string{}
	}
	return out, err
}

// recomputeDomainTx clears the namespace's domain when no source for it remains; it reports
// whether it cleared it and whether the namespace is still verified for the domain.
func (s *Store) recomputeDomainTx(tx *gorm.DB, namespaceID, domain string) (removed, still bool, err error) {
	var n int64
	if err := tx.Model(&sourceRow{}).Where("namespace_id = ? AND domain = ?", namespaceID, domain).Count(&n).Error; err != nil {
		return false, false, translate(err, "sources")
	}
	if n > 0 {
		return false, true, nil
	}
	res := tx.Exec(`UPDATE namespaces SET domain = NULL WHERE namespace_id = ? AND domain = ?`, namespaceID, domain)
	if res.Error != nil {
		return false, false, translate(res.Error, "clear domain")
	}
	return res.RowsAffected > 0, false, nil
}

// Source is a verification source due for a check.
type Source struct {
	ID          string
	NamespaceID string
	Domain      string
	Method      string
	RequestID   string
	Status      string
	GraceUntil  *time.Time
	TXT         string // the generated value (self sources)
	TargetID    string // the attesting namespace (delegated sources)
}

// ClaimDueSources leases up to limit sources whose check is due: their next check moves lease
// ahead, so that with several instances on one database each due source is checked by one of
// them (Postgres: FOR UPDATE SKIP LOCKED; SQLite: one writer at a time).
func (s *Store) ClaimDueSources(ctx context.Context, lease time.Duration, limit int) ([]Source, error) {
	now := s.nowMS()
	var rows []sourceRow
	err := s.tx(ctx, func(tx *gorm.DB) error {
		lock := ""
		if s.dialect == DialectPostgres {
			lock = " FOR UPDATE SKIP LOCKED"
		}
		if err := tx.Raw(`SELECT * FROM domain_sources WHERE next_check_at <= ? ORDER BY next_check_at, id LIMIT ?`+lock, now, limit).
			Scan(&rows).Error; err != nil {
			return translate(err, "due sources")
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return translate(tx.Model(&sourceRow{}).Where("id IN ?", ids).Update("next_check_at", now+lease.Milliseconds()).Error, "lease sources")
	})
	if err != nil {
		return nil, err
	}
	out := make([]Source, 0, len(rows))
	for _, r := range rows {
		src := Source{ID: r.ID, NamespaceID: r.NamespaceID, Domain: r.Domain, Method: r.Method, RequestID: deref(r.RequestID),
			Status: r.Status, GraceUntil: msTimePtr(r.GraceUntil)}
		switch r.Method {
		case MethodDelegated:
			if req, err := s.GetRequest(ctx, src.RequestID); err == nil {
				src.TargetID = req.TargetNamespaceID
			}
		default:
			var cs []challengeRow
			if err := s.db.WithContext(ctx).Where("namespace_id = ? AND domain = ?", r.NamespaceID, r.Domain).Find(&cs).Error; err == nil && len(cs) > 0 {
				src.TXT = cs[0].TXT
			}
		}
		out = append(out, src)
	}
	return out, nil
}

// Check outcomes of RecordCheck.
const (
	OutcomeOK            = "ok"             // the source is (again) active
	OutcomeGrace         = "grace"          // the check failed; the source is in its grace period
	OutcomeRemoved       = "removed"        // the grace period ran out; the source is gone
	OutcomeDomainRemoved = "domain_removed" // ... and it was the last one: the namespace lost the domain
)

// RecordCheck stores the result of a re-verification check of src.
func (s *Store) RecordCheck(ctx context.Context, src Source, ok bool, detail string, interval, grace, retry time.Duration) (string, error) {
	outcome := OutcomeOK
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var row sourceRow
		if err := tx.Raw(`SELECT * FROM domain_sources WHERE id = ?`+s.forUpdate(), src.ID).Take(&row).Error; err != nil {
			if errors.Is(translate(err, ""), ErrNotFound) {
				outcome = OutcomeRemoved // removed meanwhile (remove-namespace-verification)
				return nil
			}
			return translate(err, "source")
		}
		now := s.nowMS()
		switch {
		case ok:
			return translate(tx.Model(&sourceRow{}).Where("id = ?", row.ID).Updates(map[string]any{"status": SourceActive,
				"last_checked_at": now, "next_check_at": now + interval.Milliseconds(), "grace_until": nil, "last_error": ""}).Error, "source")
		case row.Status == SourceActive:
			outcome = OutcomeGrace
			until := now + grace.Milliseconds()
			return translate(tx.Model(&sourceRow{}).Where("id = ?", row.ID).Updates(map[string]any{"status": SourceGrace,
				"last_checked_at": now, "next_check_at": min(now+retry.Milliseconds(), until), "grace_until": until,
				"last_error": detail}).Error, "source")
		case row.GraceUntil != nil && now < *row.GraceUntil:
			outcome = OutcomeGrace
			return translate(tx.Model(&sourceRow{}).Where("id = ?", row.ID).Updates(map[string]any{"last_checked_at": now,
				"next_check_at": min(now+retry.Milliseconds(), *row.GraceUntil), "last_error": detail}).Error, "source")
		default:
			outcome = OutcomeRemoved
			if err := tx.Where("id = ?", row.ID).Delete(&sourceRow{}).Error; err != nil {
				return translate(err, "remove source")
			}
			if row.Method == MethodDelegated && row.RequestID != nil {
				if err := tx.Model(&requestRow{}).Where("request_id = ?", *row.RequestID).Update("status", RequestRemoved).Error; err != nil {
					return translate(err, "request")
				}
			}
			removed, _, err := s.recomputeDomainTx(tx, row.NamespaceID, row.Domain)
			if removed {
				outcome = OutcomeDomainRemoved
			}
			return err
		}
	})
	return outcome, err
}
