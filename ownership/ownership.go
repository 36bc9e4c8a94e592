// Package ownership is the domain-ownership workflow (a namespace proves that it owns an
// internet domain): generated values and self verification over DNS or HTTP, delegated requests
// and their attestation, and the periodic re-verification with its grace period. (The other two
// kinds of verification are a lookup's proof, checked by the server's verify operations and
// package proof, and the transparency log's proofs, in package translog/leaf.) It decides; domainverify checks (through the Checker
// interface) and store persists (in transactions it composes with store.Tx). The HTTP handlers
// in server call one method of Service per request.
package ownership

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/domainverify"
	"github.com/svc-directory/svc/store"
)

// Checker looks for a namespace's generated value at a domain (domainverify.Checker).
type Checker interface {
	Check(ctx context.Context, domain, want string) domainverify.Result
}

// Store is what the workflow needs of the store: its reads of namespaces, challenges, sources
// and requests, and transactions for its writes (store.Tx).
type Store interface {
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	GetNamespace(ctx context.Context, ref string, sel directory.VersionSel) (directory.Namespace, error)
	ResolveNamespace(ctx context.Context, ref string) (string, error)
	MemberRole(ctx context.Context, namespaceID, userID string) (string, error)
	Challenges(ctx context.Context, namespaceID string) ([]store.Challenge, error)
	EnsureChallenge(ctx context.Context, namespaceID, domain, method, txt string) (store.Challenge, bool, error)
	DomainAllowed(ctx context.Context, domain string) (bool, error)
	DomainHolder(ctx context.Context, domain string) (string, error)
	SelfVerifiedDomain(ctx context.Context, namespaceID string) (string, error)
	GetRequest(ctx context.Context, requestID string) (store.Request, error)
	ClaimDueSources(ctx context.Context, now, leaseUntil time.Time, limit int) ([]store.Source, error)
}

// Config is what Service needs. Store is required; the zero values of the rest are fine.
type Config struct {
	Store Store
	// Checker runs the DNS and HTTP checks (nil: verify-domain fails, and self sources fail
	// their re-verification).
	Checker Checker
	Logger  *slog.Logger
	// Now is the workflow's clock: when a source is due, how long its grace lasts (default time.Now).
	Now func() time.Time
	// Interval is how often a source is checked again (default one year); Grace how long a
	// failing source keeps the domain (default one week); Sweep how often due sources are
	// looked for (default one minute).
	Interval, Grace, Sweep time.Duration
	// Outcome, when set, is told the outcome of every re-verification check (metrics).
	Outcome func(outcome string)
	// Swept, when set, is called after every batch of re-verification checks: a namespace's
	// domain may have changed.
	Swept func()
}

// Service runs the workflow. It is safe for concurrent use.
type Service struct {
	store   Store
	checker Checker
	log     *slog.Logger
	now     func() time.Time
	cfg     Config
}

// New returns the workflow over cfg.Store.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 8760 * time.Hour
	}
	if cfg.Grace <= 0 {
		cfg.Grace = 168 * time.Hour
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = time.Minute
	}
	return &Service{store: cfg.Store, checker: cfg.Checker, log: cfg.Logger, now: cfg.Now, cfg: cfg}
}

// Kind classifies a Refusal.
type Kind int

// Kinds of refusal.
const (
	Invalid   Kind = iota + 1 // the request cannot be met as made (HTTP 400)
	NotFound                  // what it names does not exist (404)
	Forbidden                 // the caller may not do it (403)
	Conflict                  // the state of the data refuses it now (409)
)

// Refusal is an outcome the workflow expects: a rule or the state of the data refuses the
// request, with a message for the client. Nothing was written.
type Refusal struct {
	Kind    Kind
	Message string
	Err     error // the rule that refused (errors.Is), may be nil
}

func (r *Refusal) Error() string { return r.Message }
func (r *Refusal) Unwrap() error { return r.Err }

func refuse(k Kind, err error, msg string) *Refusal { return &Refusal{Kind: k, Message: msg, Err: err} }

// The rules that refuse; a Refusal wraps them.
var (
	// ErrDomainNotAllowed: the domain is not (or no longer) in the global registry.
	ErrDomainNotAllowed = errors.New("the domain is not in the global registry")
	// ErrTargetNotSelfVerified: the attesting namespace holds no domain through DNS or HTTP.
	ErrTargetNotSelfVerified = errors.New("the target namespace is not self-verified")
	// ErrNotDelegable: the domain is neither in the global registry nor a subdomain of the
	// target's self-verified domain, so the target may not vouch for it.
	ErrNotDelegable = errors.New("the domain is neither in the global registry nor a subdomain of the target namespace's verified domain")
	// ErrNotPending: the request was decided already.
	ErrNotPending = errors.New("the request is no longer pending")
)

// Messages shared by several refusals.
const (
	msgTargetNotSelfVerified = "The target namespace is not self-verified (it must own a domain verified over DNS or HTTP)"
	msgNotDelegable          = "is neither in the global registry nor a subdomain of the target namespace's verified domain: a namespace may attest only domains the operator allowed or subdomains of its own domain"
)

func notAllowed(domain string) *Refusal {
	return refuse(Invalid, ErrDomainNotAllowed, "Domain "+domain+" is not in the global registry of verifiable domains; ask the operator to allow it")
}

// normalize is domainverify.NormalizeDomain with its error as a refusal.
func normalize(domain string) (string, error) {
	d, err := domainverify.NormalizeDomain(domain)
	if err != nil {
		return "", refuse(Invalid, err, "Invalid input: "+err.Error())
	}
	return d, nil
}
