package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// Self-service API keys: a user makes, lists and revokes their own keys (POST, GET and DELETE
// /svc/api-keys). Operator-issued keys (CreateAPIKey) are the same rows, without a name.

// APIKeyPrefixLen is how many of a key's first characters are kept to show in lists ("svc_" and
// 8 of its 43 random characters: the other 35 stay secret).
const APIKeyPrefixLen = 12

// lastUsedGrain is how stale a key's last_used_at may get: an authentication that reads the key
// from the database writes it only when it is older than this.
const lastUsedGrain = time.Minute

// APIKey is one of a user's keys, without its secret.
type APIKey struct {
	ID         string
	Name       string
	Prefix     string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// NewAPIKey is a key just made: its row and the key itself, which cannot be shown again.
type NewAPIKey struct {
	APIKey
	Key string
}

// newKey makes a key, its hash and its prefix.
func newKey() (key string, sum [32]byte, prefix string) {
	key = APIKeyPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
	return key, sha256.Sum256([]byte(key)), key[:APIKeyPrefixLen]
}

func (r RowAPIKey) key() APIKey {
	return APIKey{ID: r.ID, Name: r.Name, Prefix: r.Prefix, CreatedAt: msTime(r.CreatedAt),
		LastUsedAt: msTimePtr(r.LastUsedAt), RevokedAt: msTimePtr(r.RevokedAt)}
}

// CreateOwnAPIKey makes a key named name for the user of by. A user holding
// directory.MaxLiveAPIKeys live keys is refused (a conflict); the count and the insert are one
// transaction under a lock on the user's row, so that concurrent creations cannot pass the bound.
// The key by presented must still be live, and its user enabled, after that lock (callerAccess):
// a key revoked while its request was under way mints no other (directory.ErrLapsed).
func (s *Store) CreateOwnAPIKey(ctx context.Context, by Principal, name string) (NewAPIKey, error) {
	name, err := directory.APIKeyName(name)
	if err != nil {
		return NewAPIKey{}, err
	}
	key, sum, prefix := newKey()
	row := RowAPIKey{ID: directory.NewUUID(), UserID: by.UserID, KeyHash: sum[:], Name: name, Prefix: prefix, CreatedAt: s.nowMS()}
	err = s.InTx(ctx, func(t *Tx) error {
		tx := t.db
		var id string
		if err := tx.Raw(`SELECT id FROM users WHERE id = ?`+s.d.forUpdate(), by.UserID).Scan(&id).Error; err != nil {
			return translate(err, "user")
		}
		if id == "" {
			return fmt.Errorf("user: %w", directory.ErrNotFound)
		}
		if a, err := t.callerAccess(by, "", ""); err != nil {
			return err
		} else if a.Lapsed {
			return directory.ErrLapsed
		}
		var live int64
		if err := tx.Model(&RowAPIKey{}).Where("user_id = ? AND revoked_at IS NULL", by.UserID).Count(&live).Error; err != nil {
			return translate(err, "count keys")
		}
		if err := directory.CanAddAPIKey(int(live)); err != nil {
			return err
		}
		return translate(tx.Create(&row).Error, "create key")
	})
	if err != nil {
		return NewAPIKey{}, err
	}
	return NewAPIKey{APIKey: row.key(), Key: key}, nil
}

// APIKeys lists a user's keys, live and revoked, newest first.
func (s *Store) APIKeys(ctx context.Context, userID string) ([]APIKey, error) {
	var rows []RowAPIKey
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Order("created_at DESC, id DESC").Find(&rows).Error; err != nil {
		return nil, translate(err, "list keys")
	}
	out := make([]APIKey, len(rows))
	for i, r := range rows {
		out[i] = r.key()
	}
	return out, nil
}

// RevokeOwnAPIKey revokes the user's live key keyID (ErrNotFound when the user has none of that
// id). It returns when no instance sharing the database can still accept the key: this
// instance's authentication cache is emptied at once, and the others' entries, which live
// AuthCacheTTL from a read that began before the revocation committed (Authenticate caches
// nothing read more slowly than authReadSlack), have expired after AuthHold.
func (s *Store) RevokeOwnAPIKey(ctx context.Context, userID, keyID string) error {
	var affected int64
	err := s.tx(ctx, func(tx *gorm.DB) error {
		// FOR UPDATE, which a write authorized by this key waits for (callerAccess).
		if err := s.d.lockRow(tx.Model(&RowAPIKey{}).Where("id = ? AND user_id = ?", keyID, userID)).Select("id").Find(&[]RowAPIKey{}).Error; err != nil {
			return translate(err, "revoke key")
		}
		res := tx.Model(&RowAPIKey{}).Where("id = ? AND user_id = ? AND revoked_at IS NULL", keyID, userID).Update("revoked_at", s.nowMS())
		affected = res.RowsAffected
		return translate(res.Error, "revoke key")
	})
	if err != nil {
		return err
	}
	if affected == 0 {
		return fmt.Errorf("api key: %w", directory.ErrNotFound)
	}
	s.auth.Clear()
	t := time.NewTimer(s.AuthHold())
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AuthHold is how long after a revocation commits an instance with the same AuthCacheTTL may
// still accept the key from its cache (0 without a cache).
func (s *Store) AuthHold() time.Duration {
	if s.auth == nil {
		return 0
	}
	return s.authTTL + authReadSlack(s.authTTL)
}

// authReadSlack is the longest an authentication's read may take for its answer to be cached.
func authReadSlack(ttl time.Duration) time.Duration { return ttl / 4 }

// touchKey notes that key id was used now, when its last use is older than lastUsedGrain. It is
// bookkeeping, not a change of the directory: it reports no commit (no consistency token, the
// lookup cache is kept), and a failure is logged, never the request's.
func (s *Store) touchKey(ctx context.Context, id string, lastUsed *int64) {
	now := s.nowMS()
	if lastUsed != nil && now-*lastUsed < lastUsedGrain.Milliseconds() || s.primaryLost() {
		return
	}
	release, err := s.writeTurn(ctx)
	if err != nil {
		return
	}
	defer release()
	qctx := quiet(context.WithoutCancel(ctx))
	err = s.db.WithContext(qctx).Model(&RowAPIKey{}).Where("id = ?", id).Update("last_used_at", now).Error
	if err != nil {
		s.log.WarnContext(ctx, "api key last use not recorded", "key_id", id, "err", err)
	}
}
