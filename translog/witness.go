package translog

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"

	"github.com/svc-directory/svc/translog/leaf"
	"github.com/svc-directory/svc/translog/logstore"
)

// Witnessing: the log submits each new checkpoint to its witnesses with the C2SP tlog-witness
// add-checkpoint call (the checkpoint, the size the witness last cosigned and a consistency
// proof from it), checks each cosignature (C2SP tlog-cosignature, cosignature/v1) and, once a
// quorum has cosigned one checkpoint, stores it as the log's cosigned checkpoint. It runs beside
// the integrator and never inside a write: a witness that is down or refuses only delays the
// cosigned checkpoint.

// WitnessConfig is one witness: its cosignature verifier key (C2SP signed-note vkey, Ed25519,
// type 0x04 or 0x01) and the URL its add-checkpoint endpoint is under.
type WitnessConfig struct {
	Key string
	URL string
}

// ParseWitnesses reads the witness list of SVC_LOG_WITNESSES: entries separated by commas,
// each a verifier key and a URL separated by a space ("name+hash+key https://w.example/").
func ParseWitnesses(spec string) ([]WitnessConfig, error) {
	var out []WitnessConfig
	seen := map[string]bool{}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		fields := strings.Fields(entry)
		if len(fields) != 2 {
			return nil, fmt.Errorf("translog: witness %q: want a verifier key and a URL separated by a space", entry)
		}
		key, raw := fields[0], fields[1]
		v, err := fnote.NewVerifierForCosignatureV1(key)
		if err != nil {
			return nil, fmt.Errorf("translog: witness key %q: %w", key, err)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("translog: witness URL %q: want an http or https URL", raw)
		}
		if seen[v.Name()] {
			return nil, fmt.Errorf("translog: witness %q is listed twice", v.Name())
		}
		seen[v.Name()] = true
		out = append(out, WitnessConfig{Key: key, URL: raw})
	}
	return out, nil
}

// witnessState is one witness as this instance knows it: the size it last cosigned (or told
// us it holds), from which the next consistency proof starts, and whether it told us (it
// cosigned, or answered a conflict) since this instance started. mu is held through a
// submission; size and known are read without it (Floor).
type witnessState struct {
	name     string
	endpoint string
	verifier note.Verifier
	mu       sync.Mutex
	size     atomic.Int64
	known    atomic.Bool
}

// Witnesser submits the log's checkpoints to its witnesses.
type Witnesser struct {
	st        WitnessStorage
	r         *Reader
	logVerif  note.Verifier
	witnesses []*witnessState
	quorum    int
	client    *http.Client
	log       *slog.Logger
	m         *Metrics
}

// NewWitnesser returns the witnessing of the log in st, signed by the log key logVerifierKey,
// by ws, needing quorum cosignatures (1..len(ws)) on a checkpoint for it to count as cosigned.
func NewWitnesser(st WitnessStorage, logVerifierKey string, ws []WitnessConfig, quorum int, log *slog.Logger) (*Witnesser, error) {
	if len(ws) == 0 {
		return nil, errors.New("translog: no witnesses")
	}
	if quorum < 1 || quorum > len(ws) {
		return nil, fmt.Errorf("translog: witness quorum %d: want 1 to %d (the number of witnesses)", quorum, len(ws))
	}
	lv, err := note.NewVerifier(logVerifierKey)
	if err != nil {
		return nil, fmt.Errorf("translog: log verifier key: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Witnesser{st: st, r: NewReader(st), logVerif: lv, quorum: quorum, log: log,
		client: &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for _, c := range ws {
		v, err := fnote.NewVerifierForCosignatureV1(c.Key)
		if err != nil {
			return nil, fmt.Errorf("translog: witness key %q: %w", c.Key, err)
		}
		w.witnesses = append(w.witnesses, &witnessState{name: v.Name(), verifier: v,
			endpoint: strings.TrimRight(c.URL, "/") + "/add-checkpoint"})
	}
	return w, nil
}

// WithMetrics makes the witnesser count its submissions in m, and returns it.
func (w *Witnesser) WithMetrics(m *Metrics) *Witnesser {
	w.m = m
	return w
}

// Witness outcomes (the metric's label values).
const (
	witnessCosigned    = "cosigned"     // 200 with a valid cosignature
	witnessConflict    = "conflict"     // 409: the witness holds another size; retried from it
	witnessRefused     = "refused"      // another 4xx: the witness does not accept the checkpoint
	witnessBadResponse = "bad_response" // 200 without a valid cosignature of the witness's key
	witnessUnreachable = "unreachable"  // no answer, or a 5xx
)

// WitnessOnce submits the latest checkpoint, when it is larger than the cosigned one, to every
// witness at once, and stores it as the cosigned checkpoint once a quorum cosigned it. It
// returns the number of cosignatures gathered (0 when there was nothing to do).
func (w *Witnesser) WitnessOnce(ctx context.Context) (int, error) {
	signed, c, err := w.r.Checkpoint(ctx)
	if errors.Is(err, ErrNoCheckpoint) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	done, err := w.st.LogCosigned(ctx)
	if err != nil {
		return 0, err
	}
	if c.Size == 0 || c.Size <= done.Size {
		return 0, nil
	}
	lines := make([]string, len(w.witnesses))
	var wg sync.WaitGroup
	for i, ws := range w.witnesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line, err := w.submit(ctx, ws, signed, c)
			if err != nil {
				w.log.WarnContext(ctx, "witness did not cosign", "witness", ws.name, "size", c.Size, "err", err)
				return
			}
			lines[i] = line
		}()
	}
	wg.Wait()
	cosigned := signed
	n := 0
	for _, l := range lines {
		if l != "" {
			cosigned += l
			n++
		}
	}
	if n < w.quorum {
		return n, fmt.Errorf("translog: checkpoint %d has %d of the %d cosignatures it needs", c.Size, n, w.quorum)
	}
	if _, err := w.st.SaveLogCosigned(ctx, logstore.Cosigned{Size: c.Size, Text: cosigned}); err != nil {
		return n, err
	}
	return n, nil
}

// submit asks one witness to cosign the checkpoint, starting the consistency proof from the size
// it holds; a 409 tells that size, and the request is made once more from it. It returns the
// witness's cosignature line, checked.
func (w *Witnesser) submit(ctx context.Context, ws *witnessState, signed string, c leaf.Checkpoint) (string, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if held := ws.size.Load(); held > c.Size {
			w.m.witnessed(ws.name, witnessConflict)
			return "", fmt.Errorf("the witness holds size %d, larger than this log's %d: the log was rolled back", held, c.Size)
		}
		status, body, err := w.post(ctx, ws, signed, c)
		switch {
		case err != nil:
			w.m.witnessed(ws.name, witnessUnreachable)
			return "", err
		case status == http.StatusOK:
			line, err := witnessLine(signed, body, ws.verifier)
			if err != nil {
				w.m.witnessed(ws.name, witnessBadResponse)
				return "", err
			}
			ws.size.Store(c.Size)
			ws.known.Store(true)
			w.m.witnessed(ws.name, witnessCosigned)
			return line, nil
		case status == http.StatusConflict && attempt == 0:
			w.m.witnessed(ws.name, witnessConflict)
			size, err := strconv.ParseInt(strings.TrimSpace(body), 10, 64)
			if err != nil || size < 0 {
				return "", fmt.Errorf("409 without a tree size: %q", body)
			}
			ws.size.Store(size)
			ws.known.Store(true)
		case status >= 500:
			w.m.witnessed(ws.name, witnessUnreachable)
			return "", fmt.Errorf("%d: %s", status, oneLine(body))
		default:
			if status == http.StatusNotFound { // an unknown log (C2SP tlog-witness): it holds none of it
				ws.known.Store(true)
			}
			w.m.witnessed(ws.name, witnessRefused)
			return "", fmt.Errorf("%d: %s", status, oneLine(body))
		}
	}
}

// post sends one add-checkpoint request: "old N", the consistency proof from N, a blank line and
// the signed checkpoint.
func (w *Witnesser) post(ctx context.Context, ws *witnessState, signed string, c leaf.Checkpoint) (status int, body string, err error) {
	var req bytes.Buffer
	old := ws.size.Load()
	fmt.Fprintf(&req, "old %d\n", old)
	if old > 0 && old < c.Size {
		p, err := w.r.Consistency(ctx, old, c.Size)
		if err != nil {
			return 0, "", err
		}
		for _, h := range p {
			req.WriteString(base64.StdEncoding.EncodeToString(h[:]) + "\n")
		}
	}
	req.WriteString("\n")
	req.WriteString(signed)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ws.endpoint, &req)
	if err != nil {
		return 0, "", err
	}
	resp, err := w.client.Do(hr)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, "", err
	}
	return resp.StatusCode, string(b), nil
}

// witnessLine picks, from a witness's answer (one or more signature lines: a witness may cosign
// with several keys), the line of the witness's configured key, checked as a cosignature of the
// checkpoint; lines of its other keys are left out.
func witnessLine(signed, answer string, v note.Verifier) (string, error) {
	if answer == "" || !strings.HasSuffix(answer, "\n") {
		return "", fmt.Errorf("the answer is not signature lines: %q", oneLine(answer))
	}
	for _, line := range strings.SplitAfter(strings.TrimSuffix(answer, "\n"), "\n") {
		line = strings.TrimSuffix(line, "\n") + "\n"
		if !strings.HasPrefix(line, "— ") {
			return "", fmt.Errorf("the answer is not signature lines: %q", oneLine(answer))
		}
		n, err := note.Open([]byte(signed+line), note.VerifierList(v))
		var unknown *note.UnverifiedNoteError
		switch {
		case errors.As(err, &unknown):
			continue // another key of the witness
		case err != nil:
			return "", fmt.Errorf("the cosignature does not verify: %w", err)
		}
		for _, s := range n.Sigs {
			if s.Name == v.Name() && s.Hash == v.KeyHash() {
				return line, nil
			}
		}
	}
	return "", errors.New("no cosignature of the witness's key")
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// Run witnesses the log every interval until ctx ends; failures are logged and retried at the
// next tick.
func (w *Witnesser) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := w.WitnessOnce(ctx); err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "transparency log witnessing", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
