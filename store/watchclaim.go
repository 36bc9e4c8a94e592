package store

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// WebhookEvent is an event claimed for delivery, with where and how to send it.
type WebhookEvent struct {
	EventID, SubscriptionID, WebhookURL, Secret string
	UserID                                      string // the subscriber, whose deliveries share its slots
	Payload                                     []byte
	CreatedAt                                   time.Time
	Attempt                                     int // 1 for the first
}

// WebhookClaim bounds a claim so that senders schedule subscribers fairly: at most Limit
// events, at most PerUser of one subscriber (the user who holds the subscriptions; 0: no
// bound), and none of the subscribers in SkipUsers (those whose deliveries already fill their
// slots in the claiming sender).
type WebhookClaim struct {
	Limit, PerUser int
	SkipUsers      []string
}

// ClaimWebhookEvents leases due events until leaseUntil, so that with several instances on one
// database each event is sent by one of them at a time (Postgres: FOR UPDATE SKIP LOCKED;
// SQLite: one writer at a time). Each claim counts an attempt. The events are taken round by
// round across subscribers: every subscriber's oldest due event, then every subscriber's
// second oldest, and so on, oldest first within a round, so that one subscriber's backlog
// never keeps another's events waiting behind it.
func (s *Store) ClaimWebhookEvents(ctx context.Context, now, leaseUntil time.Time, c WebhookClaim) ([]WebhookEvent, error) {
	if c.Limit <= 0 {
		return nil, nil
	}
	perUser := c.PerUser
	if perUser <= 0 {
		perUser = c.Limit
	}
	skip, args := "", []any{now.UnixMilli()}
	if len(c.SkipUsers) > 0 {
		skip = " AND s.user_id NOT IN ?"
		args = append(args, c.SkipUsers)
	}
	// The outer condition on next_attempt_at is checked again on the row a concurrent claim
	// leased meanwhile (Postgres re-reads a row it waited for), so no event is claimed twice.
	args = append(args, perUser, c.Limit, now.UnixMilli())
	var out []WebhookEvent
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var rows []outboxRow
		if err := tx.Raw(`SELECT * FROM watch_outbox WHERE event_id IN (
				SELECT event_id FROM (
					SELECT o.event_id, o.next_attempt_at,
						ROW_NUMBER() OVER (PARTITION BY s.user_id ORDER BY o.next_attempt_at, o.event_id) AS turn
					FROM watch_outbox o JOIN watch_subscriptions s ON s.subscription_id = o.subscription_id
					WHERE o.next_attempt_at <= ?`+skip+`) ranked
				WHERE turn <= ? ORDER BY turn, next_attempt_at, event_id LIMIT ?)
			AND next_attempt_at <= ?
			ORDER BY next_attempt_at, event_id`+s.d.forUpdateSkipLocked(), args...).Scan(&rows).Error; err != nil {
			return translate(err, "due webhook events")
		}
		if len(rows) == 0 {
			return nil
		}
		ids := make([]string, len(rows))
		subIDs := make([]string, 0, len(rows))
		for i, r := range rows {
			ids[i] = r.EventID
			subIDs = append(subIDs, r.SubscriptionID)
		}
		if err := tx.Exec(`UPDATE watch_outbox SET next_attempt_at = ?, attempts = attempts + 1 WHERE event_id IN ?`,
			leaseUntil.UnixMilli(), ids).Error; err != nil {
			return translate(err, "lease webhook events")
		}
		var subs []subscriptionRow
		if err := tx.Where("subscription_id IN ?", subIDs).Find(&subs).Error; err != nil {
			return translate(err, "watch subscriptions")
		}
		byID := make(map[string]subscriptionRow, len(subs))
		for _, sub := range subs {
			byID[sub.SubscriptionID] = sub
		}
		for _, r := range rows {
			sub := byID[r.SubscriptionID]
			out = append(out, WebhookEvent{EventID: r.EventID, SubscriptionID: r.SubscriptionID, WebhookURL: sub.WebhookURL,
				Secret: sub.Secret, UserID: sub.UserID, Payload: []byte(r.Payload), CreatedAt: msTime(r.CreatedAt), Attempt: r.Attempts + 1})
		}
		return nil
	})
	return out, err
}
