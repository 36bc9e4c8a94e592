package entries_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/entries"
	"github.com/svc-directory/svc/internal/storetest"
	"github.com/svc-directory/svc/store"
)

// The race harness of who may write (issue "hostile clients, round four", item 1): every
// change of who may write (a transfer, a delegate or registry delegate removed, a key revoked,
// a user disabled) is paired with a write by the side that loses, and in every trial exactly
// one consistent outcome must hold: the write commits before the change, or it is refused
// (403, nothing written).
//
// On Postgres the trial is steered so that the race is not left to chance: a blocker
// transaction holds the rows the write needs (and, for pairs that share a row, the role
// change's too), the write is started and seen waiting for its lock, then the change is
// started. When the change commits while the write still waits, the write has taken its
// snapshot before the change: it must be refused all the same (the bug this harness was
// written for, a role read in the statement that waited, let it through). When the change
// waits for the write instead, the write commits first and must succeed. On SQLite, whose
// write transactions run one at a time, the two run at once and the outcome must be one of the
// two serial orders.

// raceWorld is one trial's namespace and the users who act in it.
type raceWorld struct {
	s                 *store.Store
	svc               *entries.Service
	owner, del, rdel  entries.Caller
	ownerKey          string // the owner's key, which revoke-key revokes
	nsID              string
	emailE, emailF    string
	emailD, emailR    string
	emailG, emailUser string
}

// caller authenticates a new key of the user with this email, as the server's middleware does.
func caller(t *testing.T, s *store.Store, email string) (entries.Caller, string) {
	t.Helper()
	ctx := context.Background()
	key, _, err := s.CreateAPIKey(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if u.KeyID == "" {
		t.Fatal("Authenticate gave no key id")
	}
	return entries.Caller{UserID: u.ID, KeyID: u.KeyID, DID: "did:web:example.com:" + u.ProfileID}, key
}

func newWorld(t *testing.T, s *store.Store, trial string) *raceWorld {
	t.Helper()
	ctx := context.Background()
	w := &raceWorld{s: s, svc: entries.New(s, nil)}
	mail := func(who string) string { return fmt.Sprintf("%s-%s@example.com", who, trial) }
	w.emailE, w.emailF, w.emailD, w.emailR, w.emailG = mail("e"), mail("f"), mail("d"), mail("r"), mail("g")
	w.emailUser = mail("a")
	w.owner, w.ownerKey = caller(t, s, w.emailUser)
	w.del, _ = caller(t, s, w.emailD)
	w.rdel, _ = caller(t, s, w.emailR)
	for _, e := range []string{w.emailE, w.emailF} {
		caller(t, s, e)
	}
	ns, err := w.svc.CreateNamespace(ctx, w.owner, directory.NamespaceInput{Name: "race " + trial})
	if err != nil {
		t.Fatal(err)
	}
	w.nsID = ns.NamespaceID
	if _, err := w.svc.CreateRegistry(ctx, w.owner, w.nsID, directory.RegistryInput{RegistryName: "people", Tag: directory.TagCustom, Schema: map[string]any{"type": "object"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.AddDelegate(ctx, w.owner, w.nsID, w.emailD); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.AddRegistryDelegate(ctx, w.owner, w.nsID, "people", w.emailR); err != nil {
		t.Fatal(err)
	}
	return w
}

// addRecord is the write of most pairs: a record added by c.
func (w *raceWorld) addRecord(c entries.Caller, name string) error {
	_, err := w.svc.AddRecord(context.Background(), c, w.nsID, "people", directory.RecordInput{RecordName: name})
	return err
}

func (w *raceWorld) transfer(to string, keep bool) error {
	_, err := w.svc.TransferOwnership(context.Background(), w.owner, w.nsID, to, keep)
	return err
}

// raceCase is one pair: write (the losing side's write) and change (the change of who may
// write), the rows the blocker holds on Postgres, and what must hold afterwards.
type raceCase struct {
	name string
	// block is the blocker's statement: it locks (FOR UPDATE) what the write waits for; $1 is
	// the namespace id.
	block  string
	write  func(w *raceWorld) error
	change func(w *raceWorld) error
	// after checks the state the trial left; writeFirst tells which order the trial took.
	after func(t *testing.T, w *raceWorld, writeFirst bool)
	// exclusive: the two are the same kind of change, and whichever goes second is refused.
	exclusive bool
}

const (
	blockNamespace = `SELECT 1 FROM namespaces WHERE namespace_id = $1 FOR UPDATE`
	blockRegistry  = `SELECT 1 FROM registries WHERE namespace_id = $1 FOR UPDATE`
)

func raceCases() []raceCase {
	owner := func(t *testing.T, w *raceWorld, want string) {
		t.Helper()
		ms, err := w.s.Members(context.Background(), w.nsID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Role == directory.RoleOwner && m.Email != want {
				t.Errorf("owner %s, want %s", m.Email, want)
			}
		}
	}
	member := func(t *testing.T, w *raceWorld, email string, want bool) {
		t.Helper()
		ms, err := w.s.Members(context.Background(), w.nsID)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, m := range ms {
			got = got || m.Email == email
		}
		if got != want {
			t.Errorf("%s a member: %v, want %v", email, got, want)
		}
	}
	record := func(t *testing.T, w *raceWorld, name string, want bool) {
		t.Helper()
		_, err := w.s.GetRecord(context.Background(), w.nsID, "people", name, directory.VersionSel{})
		if got := err == nil; got != want {
			t.Errorf("record %s written: %v (%v), want %v", name, got, err, want)
		}
	}
	return []raceCase{
		{name: "transfer x transfer", block: blockNamespace, exclusive: true,
			write:  func(w *raceWorld) error { return w.transfer(w.emailE, false) },
			change: func(w *raceWorld) error { return w.transfer(w.emailF, false) },
			after: func(t *testing.T, w *raceWorld, writeFirst bool) {
				if writeFirst {
					owner(t, w, w.emailE)
				} else {
					owner(t, w, w.emailF)
				}
				ns, err := w.s.GetNamespace(context.Background(), w.nsID, directory.VersionSel{})
				if err != nil || ns.VersionCount != 2 {
					t.Errorf("namespace has %d versions (%v), want 2: one transfer", ns.VersionCount, err)
				}
			}},
		{name: "transfer x add-delegate", block: blockNamespace,
			write: func(w *raceWorld) error {
				_, err := w.svc.AddDelegate(context.Background(), w.owner, w.nsID, w.emailG)
				return err
			},
			change: func(w *raceWorld) error { return w.transfer(w.emailE, false) },
			after: func(t *testing.T, w *raceWorld, writeFirst bool) {
				owner(t, w, w.emailE)
				member(t, w, w.emailG, writeFirst)
				member(t, w, w.emailUser, false)
			}},
		{name: "transfer x add-record", block: blockRegistry,
			write:  func(w *raceWorld) error { return w.addRecord(w.owner, "x") },
			change: func(w *raceWorld) error { return w.transfer(w.emailE, false) },
			after: func(t *testing.T, w *raceWorld, writeFirst bool) {
				owner(t, w, w.emailE)
				record(t, w, "x", writeFirst)
			}},
		{name: "remove-delegate x add-record", block: blockRegistry,
			write: func(w *raceWorld) error { return w.addRecord(w.del, "x") },
			change: func(w *raceWorld) error {
				_, err := w.svc.RemoveDelegate(context.Background(), w.owner, w.nsID, w.emailD)
				return err
			},
			after: func(t *testing.T, w *raceWorld, writeFirst bool) {
				member(t, w, w.emailD, false)
				record(t, w, "x", writeFirst)
			}},
		{name: "remove-registry-delegate x add-record", block: blockRegistry,
			write: func(w *raceWorld) error { return w.addRecord(w.rdel, "x") },
			change: func(w *raceWorld) error {
				_, err := w.svc.RemoveRegistryDelegate(context.Background(), w.owner, w.nsID, "people", w.emailR)
				return err
			},
			after: func(t *testing.T, w *raceWorld, writeFirst bool) { record(t, w, "x", writeFirst) }},
		{name: "revoke-key x add-record", block: blockRegistry,
			write:  func(w *raceWorld) error { return w.addRecord(w.owner, "x") },
			change: func(w *raceWorld) error { return w.s.RevokeAPIKey(context.Background(), w.ownerKey) },
			after:  func(t *testing.T, w *raceWorld, writeFirst bool) { record(t, w, "x", writeFirst) }},
		{name: "disable-user x add-record", block: blockRegistry,
			write:  func(w *raceWorld) error { return w.addRecord(w.owner, "x") },
			change: func(w *raceWorld) error { return w.s.SetUserDisabled(context.Background(), w.emailUser, true) },
			after:  func(t *testing.T, w *raceWorld, writeFirst bool) { record(t, w, "x", writeFirst) }},
	}
}

// outcome checks one trial's two results against the order it took: the change succeeds
// (unless the pair is exclusive and the write went first: then the change is refused with 403);
// the write succeeds when it went first and is refused (403) when it went second.
func outcome(t *testing.T, c raceCase, writeErr, changeErr error, writeFirst bool) {
	t.Helper()
	switch {
	case c.exclusive && writeFirst && !errors.Is(changeErr, directory.ErrForbidden):
		t.Fatalf("the second of two exclusive changes was not refused with 403: %v", changeErr)
	case !(c.exclusive && writeFirst) && changeErr != nil:
		t.Fatalf("the change failed: %v", changeErr)
	}
	switch {
	case writeFirst && writeErr != nil:
		t.Fatalf("the write went first and was refused: %v", writeErr)
	case !writeFirst && !errors.Is(writeErr, directory.ErrForbidden):
		t.Fatalf("the write went after the change and was not refused with 403: %v", writeErr)
	}
}

func TestWhoMayWriteRaces(t *testing.T) {
	const trials = 3
	for _, c := range raceCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Run(store.DialectSQLite, func(t *testing.T) {
				s := storetest.Open(t, store.DialectSQLite)
				for i := range trials * 2 {
					w := newWorld(t, s, fmt.Sprint(i))
					werr, cerr := make(chan error, 1), make(chan error, 1)
					go func() { werr <- c.write(w) }()
					go func() { cerr <- c.change(w) }()
					we, ce := <-werr, <-cerr
					// One transaction at a time: the write went first exactly when it succeeded.
					outcome(t, c, we, ce, we == nil)
					c.after(t, w, we == nil)
				}
			})
			t.Run(store.DialectPostgres, func(t *testing.T) {
				s, dbURL := storetest.OpenURL(t, store.DialectPostgres)
				app := "race_" + randHex()
				steered, err := store.Open(context.Background(), dbURL+"&application_name="+app, slog.New(slog.DiscardHandler), store.Options{MaxOpenConns: 10})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = steered.Close() })
				_ = s
				for i := range trials {
					steeredTrial(t, c, steered, dbURL, app, fmt.Sprint(i))
				}
			})
		})
	}
}

// steeredTrial runs one Postgres trial: the blocker holds c.block's rows; the write starts and
// waits for them; the change starts and either commits (it needs none of them) or waits too;
// then the blocker lets go.
func steeredTrial(t *testing.T, c raceCase, s *store.Store, dbURL, app, trial string) {
	t.Helper()
	ctx := context.Background()
	w := newWorld(t, s, trial)
	blocker, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close(ctx)
	btx, err := blocker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := btx.Exec(ctx, c.block, w.nsID); err != nil {
		t.Fatal(err)
	}
	// The watcher reads pg_stat_activity outside the blocker's transaction, which would see one
	// snapshot of it for its whole length.
	watcher, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close(ctx)
	waiting := func(n int) bool {
		var got int
		if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, app).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got >= n
	}
	werr, cerr := make(chan error, 1), make(chan error, 1)
	go func() { werr <- c.write(w) }()
	waitFor(t, "the write to wait for the blocker", func() bool { return waiting(1) })
	go func() { cerr <- c.change(w) }()
	var changeErr error
	changeFirst := false
	waitFor(t, "the change to commit or wait", func() bool {
		select {
		case changeErr = <-cerr:
			changeFirst = true
			return true
		default:
			return waiting(2)
		}
	})
	if err := btx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	writeErr := <-werr
	if !changeFirst {
		changeErr = <-cerr
	}
	outcome(t, c, writeErr, changeErr, !changeFirst)
	c.after(t, w, !changeFirst)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func randHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
