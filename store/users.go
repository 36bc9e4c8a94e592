package store

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/svc-directory/svc/directory"
)

// APIKeyPrefix starts every API key: "svc_" + 43 base64url characters (32 random bytes).
const APIKeyPrefix = "svc_"

// ErrMalformedKey: the presented key is not of the svc_ form.
var ErrMalformedKey = errors.New("malformed API key")

// User is an identity that holds API keys and a did:web profile.
type User struct {
	ID        string
	Email     string
	ProfileID string
	Disabled  bool
	CreatedAt time.Time
	// KeyID is the id of the API key the user authenticated with (Authenticate only).
	KeyID string
}

type userRow struct {
	ID        string `gorm:"column:id;primaryKey"`
	Email     string `gorm:"column:email"`
	ProfileID string `gorm:"column:profile_id"`
	Disabled  bool   `gorm:"column:disabled"`
	CreatedAt int64  `gorm:"column:created_at"`
}

func (userRow) TableName() string { return "users" }

// Principal is the user as a write's authorization knows it: its id and the key it presented.
func (u User) Principal() Principal { return Principal{UserID: u.ID, KeyID: u.KeyID} }

func (r userRow) user() User {
	return User{ID: r.ID, Email: r.Email, ProfileID: r.ProfileID, Disabled: r.Disabled, CreatedAt: time.UnixMilli(r.CreatedAt).UTC()}
}

// RowAPIKey is an api_keys row.
// Database rows are exported only because GORM fills embedded structs through exported types;
// callers use the entry types (Namespace, Registry, Record, User).
type RowAPIKey struct {
	ID         string `gorm:"column:id;primaryKey"`
	UserID     string `gorm:"column:user_id"`
	KeyHash    []byte `gorm:"column:key_hash"`
	Name       string `gorm:"column:name"`
	Prefix     string `gorm:"column:prefix"`
	CreatedAt  int64  `gorm:"column:created_at"`
	RevokedAt  *int64 `gorm:"column:revoked_at"`
	LastUsedAt *int64 `gorm:"column:last_used_at"`
}

func (RowAPIKey) TableName() string { return "api_keys" }

type profileKeyRow struct {
	ID                 string `gorm:"column:id;primaryKey"`
	UserID             string `gorm:"column:user_id"`
	PublicKeyMultibase string `gorm:"column:public_key_multibase"`
	CreatedAt          int64  `gorm:"column:created_at"`
}

func (profileKeyRow) TableName() string { return "profile_keys" }

// NormalizeEmail lowercases and trims an email address and checks its rough shape
// (one @, non-empty local part and domain, no spaces or control characters).
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || len(e) > 254 {
		return "", directory.Invalid.With("email %q is not an address", email)
	}
	for _, r := range e {
		if r <= ' ' || r == 0x7f {
			return "", directory.Invalid.With("email %q has spaces or control characters", email)
		}
	}
	return e, nil
}

// EnsureUser returns the user with this email, creating it (with a new profile) when new.
func (s *Store) EnsureUser(ctx context.Context, email string) (User, error) {
	var u User
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var err error
		u, err = s.ensureUserTx(tx, email)
		return err
	})
	return u, err
}

func (s *Store) ensureUserTx(tx *gorm.DB, email string) (User, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	row := userRow{ID: directory.NewUUID(), Email: e, ProfileID: directory.NewProfileID(), CreatedAt: s.nowMS()}
	if err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}).Create(&row).Error; err != nil {
		return User{}, translate(err, "create user")
	}
	var got userRow
	if err := tx.Where("email = ?", e).Take(&got).Error; err != nil {
		return User{}, translate(err, "user")
	}
	if got.ID == row.ID { // this call created it
		if err := addToCounter(tx, counterUsers, 1); err != nil {
			return User{}, err
		}
	}
	return got.user(), nil
}

// UserByEmail finds a user.
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	var row userRow
	if err := s.db.WithContext(ctx).Where("email = ?", e).Take(&row).Error; err != nil {
		return User{}, translate(err, "user "+e)
	}
	return row.user(), nil
}

// UserByProfileID finds a user by its profile id (DID documents).
func (s *Store) UserByProfileID(ctx context.Context, profileID string) (User, error) {
	var row userRow
	if err := s.db.WithContext(ctx).Where("profile_id = ?", profileID).Take(&row).Error; err != nil {
		return User{}, translate(err, "profile")
	}
	return row.user(), nil
}

// CreateAPIKey makes a new key for the user with this email (created when new) and returns the
// key. Only its SHA-256 hash is stored; the key cannot be shown again.
func (s *Store) CreateAPIKey(ctx context.Context, email string) (string, User, error) {
	key, sum, prefix := newKey()
	var u User
	err := s.tx(ctx, func(tx *gorm.DB) error {
		var err error
		if u, err = s.ensureUserTx(tx, email); err != nil {
			return err
		}
		row := RowAPIKey{ID: directory.NewUUID(), UserID: u.ID, KeyHash: sum[:], Prefix: prefix, CreatedAt: s.nowMS()}
		return translate(tx.Create(&row).Error, "create key")
	})
	if err != nil {
		return "", User{}, err
	}
	return key, u, nil
}

// ParseAPIKey checks the form of a presented key: svc_ + 43 base64url characters.
func ParseAPIKey(key string) error {
	rest, ok := strings.CutPrefix(key, APIKeyPrefix)
	if !ok || len(rest) != 43 {
		return ErrMalformedKey
	}
	if _, err := base64.RawURLEncoding.DecodeString(rest); err != nil {
		return ErrMalformedKey
	}
	return nil
}

// Authenticate returns the user owning a live (unrevoked) key. It returns ErrMalformedKey for a
// key of the wrong form and ErrNotFound for an unknown or revoked key. The caller decides what a
// disabled user means (User.Disabled). A key read from the database has its last use noted
// (touchKey). The answer is cached for AuthCacheTTL unless a revocation through this store
// came between the read and the caching, or the read took longer than authReadSlack (so that
// RevokeOwnAPIKey's wait, AuthHold, outlasts every other instance's entry too).
func (s *Store) Authenticate(ctx context.Context, key string) (User, error) {
	if err := ParseAPIKey(key); err != nil {
		return User{}, err
	}
	sum := sha256.Sum256([]byte(key))
	if u, ok := s.auth.Get(sum); ok {
		return u, nil
	}
	gen, start := s.auth.Generation(), time.Now()
	// Every authenticated request passes here: database/sql directly, no GORM.
	var (
		u        User
		hash     []byte
		revoked  sql.NullInt64
		lastUsed sql.NullInt64
		keyID    string
		created  int64
	)
	const q = `SELECT k.key_hash, k.revoked_at, k.id, k.last_used_at, u.id, u.email, u.profile_id, u.disabled, u.created_at
		FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ?`
	dest := []any{&hash, &revoked, &keyID, &lastUsed, &u.ID, &u.Email, &u.ProfileID, &u.Disabled, &created}
	err := s.primaryRow(ctx, q, []any{sum[:]}, dest...)
	if Unavailable(err) && s.replicas != nil {
		// The primary is lost (primary.go): a replica within the lag bound knows the key, so
		// that reads with a key are served; no key can be revoked until a primary is back.
		err = s.rawRow(ReplicaReads(ctx, 0), q, []any{sum[:]}, dest...)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("api key: %w", directory.ErrNotFound)
	}
	if err != nil {
		return User{}, translate(err, "authenticate")
	}
	if revoked.Valid || subtle.ConstantTimeCompare(hash, sum[:]) != 1 {
		return User{}, fmt.Errorf("api key: %w", directory.ErrNotFound)
	}
	u.CreatedAt, u.KeyID = time.UnixMilli(created).UTC(), keyID
	if time.Since(start) <= authReadSlack(s.authTTL) {
		s.auth.SetIfUnchanged(gen, sum, u)
	}
	var lu *int64
	if lastUsed.Valid {
		lu = &lastUsed.Int64
	}
	s.touchKey(ctx, keyID, lu)
	return u, nil
}

// RevokeAPIKey revokes a key; revoking twice is ErrNotFound the second time.
func (s *Store) RevokeAPIKey(ctx context.Context, key string) error {
	if err := ParseAPIKey(key); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(key))
	var affected int64
	err := s.tx(ctx, func(tx *gorm.DB) error {
		// FOR UPDATE, which a write authorized by this key waits for (callerAccess).
		if err := s.d.lockRow(tx.Model(&RowAPIKey{}).Where("key_hash = ?", sum[:])).Select("id").Find(&[]RowAPIKey{}).Error; err != nil {
			return translate(err, "revoke key")
		}
		res := tx.Model(&RowAPIKey{}).Where("key_hash = ? AND revoked_at IS NULL", sum[:]).Update("revoked_at", s.nowMS())
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
	return nil
}

// SetUserDisabled disables (or re-enables) a user. A disabled user's keys stop working for
// every operation that needs a key.
func (s *Store) SetUserDisabled(ctx context.Context, email string, disabled bool) error {
	e, err := NormalizeEmail(email)
	if err != nil {
		return err
	}
	var affected int64
	err = s.tx(ctx, func(tx *gorm.DB) error {
		// FOR UPDATE, which a write authorized for this user waits for (callerAccess).
		if err := s.d.lockRow(tx.Model(&userRow{}).Where("email = ?", e)).Select("id").Find(&[]userRow{}).Error; err != nil {
			return translate(err, "disable user")
		}
		res := tx.Model(&userRow{}).Where("email = ?", e).Update("disabled", disabled)
		affected = res.RowsAffected
		return translate(res.Error, "disable user")
	})
	if err != nil {
		return err
	}
	if affected == 0 {
		return fmt.Errorf("user %s: %w", e, directory.ErrNotFound)
	}
	s.auth.Clear()
	return nil
}

// AddProfileKey registers an Ed25519 public key (multibase, already validated by the caller)
// on the user's profile. Registering the same key twice is ErrConflict.
func (s *Store) AddProfileKey(ctx context.Context, email, multibase string) error {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return err
	}
	row := profileKeyRow{ID: directory.NewUUID(), UserID: u.ID, PublicKeyMultibase: multibase, CreatedAt: s.nowMS()}
	return translate(s.db.WithContext(ctx).Create(&row).Error, "add profile key")
}

// ProfileKeys lists a user's registered public keys, oldest first.
func (s *Store) ProfileKeys(ctx context.Context, userID string) ([]string, error) {
	var keys []string
	err := s.db.WithContext(ctx).Model(&profileKeyRow{}).Where("user_id = ?", userID).Order("created_at, id").Pluck("public_key_multibase", &keys).Error
	return keys, translate(err, "profile keys")
}
