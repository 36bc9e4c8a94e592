// Watch subscriptions (docs/webhooks.md): webhooks on the new versions of a namespace, a
// registry or a record, queued in the transaction that writes the version and delivered at
// least once by a background sender (package webhook).

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/proof"
)

// Watch types: what a subscription watches. A namespace subscription hears of the namespace,
// its registries and their records; a registry subscription of the registry and its records;
// a tag subscription of every registry with the tag (its target) and their records, in every
// namespace, whenever the registry was made.
const (
	WatchNamespace = "namespace"
	WatchRegistry  = "registry"
	WatchRecord    = "record"
	WatchTag       = "tag"
)

// WatchTypes are the watch types, the values of the contract's watch_type.
var WatchTypes = []string{WatchNamespace, WatchRegistry, WatchRecord, WatchTag}

// Subscription states: failing once an event could not be delivered within the retry window;
// a later delivery makes it active again.
const (
	SubscriptionActive  = "active"
	SubscriptionFailing = "failing"
)

// MaxSubscriptionsPerUser bounds how many subscriptions one user holds.
const MaxSubscriptionsPerUser = 100

// Subscription is a watch subscription. Secret is only ever shown to its creator, once.
// NamespaceID is "" for a tag subscription, whose TargetID is the tag.
type Subscription struct {
	ID, UserID, WatchType, TargetID, NamespaceID, WebhookURL, Secret, State string
	CreatedAt                                                               time.Time
	FailingSince                                                            *time.Time
}

type subscriptionRow struct {
	SubscriptionID string  `gorm:"column:subscription_id;primaryKey"`
	UserID         string  `gorm:"column:user_id"`
	WatchType      string  `gorm:"column:watch_type"`
	TargetID       string  `gorm:"column:target_id"`
	NamespaceID    *string `gorm:"column:namespace_id"` // NULL for a tag subscription
	WebhookURL     string  `gorm:"column:webhook_url"`
	Secret         string  `gorm:"column:secret"`
	State          string  `gorm:"column:state"`
	CreatedAt      int64   `gorm:"column:created_at"`
	FailingSince   *int64  `gorm:"column:failing_since"`
}

func (subscriptionRow) TableName() string { return "watch_subscriptions" }

func (r subscriptionRow) subscription() Subscription {
	ns := ""
	if r.NamespaceID != nil {
		ns = *r.NamespaceID
	}
	return Subscription{ID: r.SubscriptionID, UserID: r.UserID, WatchType: r.WatchType, TargetID: r.TargetID,
		NamespaceID: ns, WebhookURL: r.WebhookURL, Secret: r.Secret, State: r.State,
		CreatedAt: msTime(r.CreatedAt), FailingSince: msTimePtr(r.FailingSince)}
}

// ErrTooManySubscriptions: the user holds MaxSubscriptionsPerUser already.
var ErrTooManySubscriptions = directory.Conflict.With("a user holds at most %d watch subscriptions; delete one first", MaxSubscriptionsPerUser)

// CreateSubscription subscribes the user to the new versions of the entry targetID names (a
// namespace id, registry id or record id, by watchType), or for a tag watch of every registry
// with the tag targetID. An unknown entry is ErrNotFound.
func (s *Store) CreateSubscription(ctx context.Context, userID, watchType, targetID, webhookURL, secret string) (Subscription, error) {
	var table, col string
	switch watchType {
	case WatchNamespace:
		table, col = "namespaces", "namespace_id"
	case WatchRegistry:
		table, col = "registries", "registry_id"
	case WatchRecord:
		table, col = "records", "record_id"
	case WatchTag:
		if !isRegistryTag(targetID) {
			return Subscription{}, directory.Invalid.With("registry_tag %q is not a registry tag", targetID)
		}
	default:
		return Subscription{}, directory.Invalid.With("watch_type must be namespace, registry, record or tag")
	}
	row := subscriptionRow{SubscriptionID: directory.NewUUID(), UserID: userID, WatchType: watchType, TargetID: targetID,
		WebhookURL: webhookURL, Secret: secret, State: SubscriptionActive, CreatedAt: s.nowMS()}
	err := s.tx(ctx, func(tx *gorm.DB) error {
		if table != "" {
			var ns []string
			if err := tx.Raw(`SELECT namespace_id FROM `+table+` WHERE `+col+` = ?`, targetID).Scan(&ns).Error; err != nil {
				return translate(err, "watched entry")
			}
			if len(ns) == 0 {
				return fmt.Errorf("watched %s %q: %w", watchType, targetID, directory.ErrNotFound)
			}
			row.NamespaceID = &ns[0]
		}
		// The user's row is locked so that concurrent creations count one after another.
		var locked []string
		if err := tx.Raw(`SELECT id FROM users WHERE id = ?`+s.d.forUpdate(), userID).Scan(&locked).Error; err != nil {
			return translate(err, "user")
		}
		var held int64
		if err := tx.Model(&subscriptionRow{}).Where("user_id = ?", userID).Count(&held).Error; err != nil {
			return translate(err, "subscriptions")
		}
		if held >= MaxSubscriptionsPerUser {
			return ErrTooManySubscriptions
		}
		return translate(tx.Create(&row).Error, "create subscription")
	})
	if err != nil {
		return Subscription{}, err
	}
	return row.subscription(), nil
}

// Subscriptions lists the user's subscriptions, oldest first.
func (s *Store) Subscriptions(ctx context.Context, userID string) ([]Subscription, error) {
	var rows []subscriptionRow
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at, subscription_id").Find(&rows).Error; err != nil {
		return nil, translate(err, "subscriptions")
	}
	out := make([]Subscription, len(rows))
	for i, r := range rows {
		out[i] = r.subscription()
	}
	return out, nil
}

// Subscription reads one subscription of the user (ErrNotFound when it is not theirs).
func (s *Store) Subscription(ctx context.Context, userID, id string) (Subscription, error) {
	var r subscriptionRow
	if err := s.db.WithContext(ctx).Where("subscription_id = ? AND user_id = ?", id, userID).Take(&r).Error; err != nil {
		return Subscription{}, translate(err, "subscription")
	}
	return r.subscription(), nil
}

// DeleteSubscription deletes a subscription of the user, with its waiting events and its
// delivery history (ErrNotFound when it is not theirs).
func (s *Store) DeleteSubscription(ctx context.Context, userID, id string) error {
	return s.tx(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&subscriptionRow{}).Where("subscription_id = ? AND user_id = ?", id, userID).Count(&n).Error; err != nil {
			return translate(err, "subscription")
		}
		if n == 0 {
			return fmt.Errorf("subscription %q: %w", id, directory.ErrNotFound)
		}
		for _, table := range []string{"watch_outbox", "watch_deliveries", "watch_subscriptions"} {
			if err := tx.Exec(`DELETE FROM `+table+` WHERE subscription_id = ?`, id).Error; err != nil {
				return translate(err, "delete subscription")
			}
		}
		return nil
	})
}

// WatchEvent is what a webhook says of a new version: enough for the receiver to fetch the
// version and check its digest.
type WatchEvent struct {
	Kind         string `json:"kind"`
	NamespaceID  string `json:"namespace_id"`
	RegistryID   string `json:"registry_id,omitempty"`
	RecordID     string `json:"record_id,omitempty"`
	Version      string `json:"version"`
	VersionCount int64  `json:"version_count"`
	Digest       string `json:"digest"`
	State        string `json:"state,omitempty"` // registries and records
	at           int64
}

func watchEventOf(v appendedVersion) WatchEvent {
	l := v.leaf
	return WatchEvent{Kind: l.Kind, NamespaceID: l.NamespaceID, RegistryID: l.RegistryID, RecordID: l.RecordID,
		Version: l.Version, VersionCount: l.VersionCount, Digest: l.Digest, State: v.state, at: v.at}
}

// watchedBy reports whether a subscription of watchType on target hears of e; tags holds the
// tag of the registries of the events (read only when a tag subscription may hear of them).
func (e WatchEvent) watchedBy(watchType, target string, tags map[string]string) bool {
	switch watchType {
	case WatchNamespace:
		return e.NamespaceID == target
	case WatchRegistry:
		return e.RegistryID == target
	case WatchTag:
		return e.RegistryID != "" && tags[e.RegistryID] == target
	}
	return e.RecordID == target && e.RecordID != ""
}

// WebhookPayload is the body of a delivery, in the Standard Webhooks shape: type
// ("<kind>.created" for an entry's first version, else "<kind>.updated"), timestamp (the
// version's creation), data.
type WebhookPayload struct {
	Type           string     `json:"type"`
	Timestamp      string     `json:"timestamp"`
	SubscriptionID string     `json:"subscription_id"`
	Data           WatchEvent `json:"data"`
}

type outboxRow struct {
	EventID        string `gorm:"column:event_id;primaryKey"`
	SubscriptionID string `gorm:"column:subscription_id"`
	Payload        string `gorm:"column:payload"`
	CreatedAt      int64  `gorm:"column:created_at"`
	NextAttemptAt  int64  `gorm:"column:next_attempt_at"`
	Attempts       int    `gorm:"column:attempts"`
}

func (outboxRow) TableName() string { return "watch_outbox" }

// queueForWatchers is the watch outbox's sink: it queues an event per public version and
// subscription watching it (a record draft is not announced). A write to a namespace nobody
// watches, while no tag subscription exists, costs one indexed look-up that finds nothing; a
// tag subscription adds the look-up of the written registries' tags.
func queueForWatchers(tx *gorm.DB, vs []appendedVersion) error {
	events := make([]WatchEvent, 0, len(vs))
	namespaces := map[string]bool{}
	var nsIDs []string
	for _, v := range vs {
		if !v.public {
			continue
		}
		e := watchEventOf(v)
		events = append(events, e)
		if !namespaces[e.NamespaceID] {
			namespaces[e.NamespaceID] = true
			nsIDs = append(nsIDs, e.NamespaceID)
		}
	}
	if len(events) == 0 {
		return nil
	}
	var subs []subscriptionRow
	if err := tx.Raw(`SELECT subscription_id, watch_type, target_id FROM watch_subscriptions WHERE namespace_id IN ?
		UNION ALL SELECT subscription_id, watch_type, target_id FROM watch_subscriptions WHERE watch_type = ?`, nsIDs, WatchTag).
		Scan(&subs).Error; err != nil {
		return translate(err, "watch subscriptions")
	}
	if len(subs) == 0 {
		return nil
	}
	tags, err := registryTags(tx, events, subs)
	if err != nil {
		return err
	}
	var out []outboxRow
	for _, e := range events {
		for _, sub := range subs {
			if !e.watchedBy(sub.WatchType, sub.TargetID, tags) {
				continue
			}
			kind := ".updated"
			if e.VersionCount == 1 {
				kind = ".created"
			}
			body, err := json.Marshal(WebhookPayload{Type: e.Kind + kind, Timestamp: proof.FormatTime(msTime(e.at)),
				SubscriptionID: sub.SubscriptionID, Data: e})
			if err != nil {
				return err
			}
			out = append(out, outboxRow{EventID: "msg_" + strings.ReplaceAll(directory.NewUUID(), "-", ""), SubscriptionID: sub.SubscriptionID,
				Payload: string(body), CreatedAt: e.at, NextAttemptAt: e.at})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return translate(tx.CreateInBatches(out, versionBatch).Error, "watch outbox")
}

// DeliveryAttempt is the outcome of sending an event once.
type DeliveryAttempt struct {
	At         time.Time
	StatusCode int    // 0: no HTTP answer
	Error      string // "" when delivered
	Delivered  bool
	// Retry is when to try again; zero when the event is given up (the subscription is then
	// marked failing). Ignored when Delivered.
	Retry time.Time
}

// RecordDelivery keeps an attempt in the subscription's history and settles the event:
// delivered or given up, it leaves the outbox; otherwise it waits until a.Retry. A delivery
// makes a failing subscription active again; giving up marks it failing.
func (s *Store) RecordDelivery(ctx context.Context, e WebhookEvent, a DeliveryAttempt) error {
	return s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Exec(`INSERT INTO watch_deliveries (subscription_id, event_id, attempt, attempted_at, status_code, error, delivered)
			SELECT subscription_id, ?, ?, ?, ?, ?, ? FROM watch_subscriptions WHERE subscription_id = ?`,
			e.EventID, e.Attempt, a.At.UnixMilli(), a.StatusCode, a.Error, a.Delivered, e.SubscriptionID).Error; err != nil {
			return translate(err, "webhook delivery")
		}
		switch {
		case a.Delivered:
			if err := tx.Exec(`UPDATE watch_subscriptions SET state = ?, failing_since = NULL WHERE subscription_id = ? AND state <> ?`,
				SubscriptionActive, e.SubscriptionID, SubscriptionActive).Error; err != nil {
				return translate(err, "subscription state")
			}
		case a.Retry.IsZero():
			if err := tx.Exec(`UPDATE watch_subscriptions SET state = ?, failing_since = ? WHERE subscription_id = ? AND state <> ?`,
				SubscriptionFailing, a.At.UnixMilli(), e.SubscriptionID, SubscriptionFailing).Error; err != nil {
				return translate(err, "subscription state")
			}
		default:
			return translate(tx.Exec(`UPDATE watch_outbox SET next_attempt_at = ? WHERE event_id = ?`, a.Retry.UnixMilli(), e.EventID).Error,
				"webhook retry")
		}
		return translate(tx.Exec(`DELETE FROM watch_outbox WHERE event_id = ?`, e.EventID).Error, "webhook settled")
	})
}

// Delivery is one attempt of the subscription's history.
type Delivery struct {
	EventID    string
	Attempt    int
	At         time.Time
	StatusCode int
	Error      string
	Delivered  bool
}

// Deliveries lists the newest attempts of the user's subscription, newest first, at most
// limit (ErrNotFound when the subscription is not theirs).
func (s *Store) Deliveries(ctx context.Context, userID, id string, limit int) ([]Delivery, error) {
	if _, err := s.Subscription(ctx, userID, id); err != nil {
		return nil, err
	}
	rows, err := s.primaryRows(ctx, `SELECT event_id, attempt, attempted_at, status_code, error, delivered
		FROM watch_deliveries WHERE subscription_id = ? ORDER BY id DESC LIMIT ?`, id, limit)
	if err != nil {
		return nil, translate(err, "deliveries")
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var at int64
		if err := rows.Scan(&d.EventID, &d.Attempt, &at, &d.StatusCode, &d.Error, &d.Delivered); err != nil {
			return nil, translate(err, "deliveries")
		}
		d.At = msTime(at)
		out = append(out, d)
	}
	return out, translate(rows.Err(), "deliveries")
}

// WebhookQueue is the outbox's depth and the age of its oldest event (metrics).
func (s *Store) WebhookQueue(ctx context.Context) (depth int64, oldest time.Time, err error) {
	var o *int64
	if err := s.primaryRow(ctx, `SELECT COUNT(*), MIN(created_at) FROM watch_outbox`, nil, &depth, &o); err != nil {
		return 0, time.Time{}, translate(err, "webhook queue")
	}
	if o != nil {
		oldest = msTime(*o)
	}
	return depth, oldest, nil
}
