package store

import (
	"context"
	"time"

	"github.com/svc-directory/svc/directory"
)

// Statuses of a delegated verification request.
const (
	RequestPending  = "pending"
	RequestAccepted = "accepted"
	RequestRejected = "rejected"
	RequestRemoved  = "removed"
)

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

// GetRequest reads a delegated request.
func (s *Store) GetRequest(ctx context.Context, requestID string) (Request, error) {
	var r requestRow
	if err := s.db.WithContext(ctx).Where("request_id = ?", requestID).Take(&r).Error; err != nil {
		return Request{}, translate(err, "request")
	}
	return r.request(), nil
}

// LockRequest reads a request and locks it until the transaction ends.
func (t *Tx) LockRequest(requestID string) (Request, error) {
	var r requestRow
	if err := t.db.Raw(`SELECT * FROM verification_requests WHERE request_id = ?`+t.s.d.forUpdate(), requestID).Take(&r).Error; err != nil {
		return Request{}, translate(err, "request")
	}
	return r.request(), nil
}

// PendingRequest returns the namespace's pending request for the domain (found false: none).
func (t *Tx) PendingRequest(namespaceID, domain string) (r Request, found bool, err error) {
	var rows []requestRow
	if err := t.db.Where("namespace_id = ? AND domain = ? AND status = ?", namespaceID, domain, RequestPending).Find(&rows).Error; err != nil {
		return Request{}, false, translate(err, "requests")
	}
	if len(rows) == 0 {
		return Request{}, false, nil
	}
	return rows[0].request(), true, nil
}

// InsertPendingRequest stores a new pending request of the namespace to the target for the
// domain, made by the user requestedBy, unless the namespace has a pending request for the
// domain already: then it writes nothing and inserted is false. The unique index on pending
// requests decides, also between concurrent transactions (Postgres waits for the other one).
func (t *Tx) InsertPendingRequest(namespaceID, targetID, domain, txt, requestedBy string) (r Request, inserted bool, err error) {
	row := requestRow{RequestID: directory.NewUUID(), NamespaceID: namespaceID, TargetNamespaceID: targetID, Domain: domain, TXT: txt,
		Status: RequestPending, RequestedBy: requestedBy, CreatedAt: t.s.nowMS()}
	// The conflict target names the partial unique index verification_requests_one_pending.
	res := t.db.Exec(`INSERT INTO verification_requests (request_id, namespace_id, target_namespace_id, domain, txt, status,
		requested_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (namespace_id, domain) WHERE status = 'pending' DO NOTHING`,
		row.RequestID, row.NamespaceID, row.TargetNamespaceID, row.Domain, row.TXT, row.Status, row.RequestedBy, row.CreatedAt)
	if res.Error != nil {
		return Request{}, false, translate(res.Error, "request")
	}
	return row.request(), res.RowsAffected == 1, nil
}

// DecideRequest records the decision on a request: its new status, who decided, when (now), and
// for an acceptance the attestation record (registryID, recordID; "" for none).
func (t *Tx) DecideRequest(requestID, status, decidedBy, registryID, recordID string) error {
	set := map[string]any{"status": status, "decided_by": decidedBy, "decided_at": t.s.nowMS()}
	if registryID != "" || recordID != "" {
		set["registry_id"], set["record_id"] = registryID, recordID
	}
	return translate(t.db.Model(&requestRow{}).Where("request_id = ?", requestID).Updates(set).Error, "decide request")
}

// OpenRequests lists the namespace's pending and accepted requests for the domain.
func (t *Tx) OpenRequests(namespaceID, domain string) ([]Request, error) {
	var rows []requestRow
	if err := t.db.Where("namespace_id = ? AND domain = ? AND status IN ?", namespaceID, domain, []string{RequestPending, RequestAccepted}).
		Find(&rows).Error; err != nil {
		return nil, translate(err, "requests")
	}
	out := make([]Request, len(rows))
	for i, r := range rows {
		out[i] = r.request()
	}
	return out, nil
}

// RemoveOpenRequests marks the namespace's pending and accepted requests for the domain
// removed; it returns how many.
func (t *Tx) RemoveOpenRequests(namespaceID, domain string) (int64, error) {
	res := t.db.Model(&requestRow{}).Where("namespace_id = ? AND domain = ? AND status IN ?", namespaceID, domain,
		[]string{RequestPending, RequestAccepted}).Update("status", RequestRemoved)
	return res.RowsAffected, translate(res.Error, "remove requests")
}

// RemoveRequest marks one request removed (its delegated source is gone).
func (t *Tx) RemoveRequest(requestID string) error {
	return translate(t.db.Model(&requestRow{}).Where("request_id = ?", requestID).Update("status", RequestRemoved).Error, "request")
}
