package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/svc-directory/svc/gen/client"
	"github.com/svc-directory/svc/proof"
)

// importer sends NDJSON add-record bodies through add-records in whole batches.
type importer struct {
	api        *client.ClientWithResponses
	ns, reg    string
	batch      int
	progress   io.Writer // nil when standard error is not a terminal
	out        io.Writer
	added      int
	skipped    int
	batches    int
	started    time.Time
	lastReport time.Time
}

// retryDoer retries requests answered 429 or 5xx (and transport errors), honouring
// Retry-After, with exponential backoff.
type retryDoer struct {
	inner    *http.Client
	attempts int
	base     time.Duration
	sleep    sleeper
}

// sleeper waits d, or until ctx ends (its error then).
type sleeper func(ctx context.Context, d time.Duration) error

// sleep is the sleeper of the command: the real clock.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *retryDoer) Do(req *http.Request) (*http.Response, error) {
	var last error
	for attempt := 0; attempt < d.attempts; attempt++ {
		if attempt > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req.Body = body
		}
		resp, err := d.inner.Do(req)
		wait := d.base * time.Duration(math.Pow(2, float64(attempt)))
		switch {
		case err != nil:
			last = err
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
			if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			last = fmt.Errorf("the service answered %s", resp.Status)
		default:
			return resp, nil
		}
		if attempt < d.attempts-1 {
			if err := d.sleep(req.Context(), wait); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("giving up after %d attempts: %w", d.attempts, last)
}

func cmdImport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return importWith(ctx, args, stdin, stdout, stderr, sleep)
}

// importWith is cmdImport waiting between retries with wait.
func importWith(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, wait sleeper) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseURL := fs.String("url", envOr("SVC_URL", "http://localhost:8080"), "the service's base URL [SVC_URL]")
	key := fs.String("key", envOr("SVC_API_KEY", ""), "API key of an owner or delegate of the namespace [SVC_API_KEY]")
	ns := fs.String("namespace", "", "namespace id or verified domain (required)")
	reg := fs.String("registry", "", "registry name (required)")
	batch := fs.Int("batch", 1000, "records per add-records call (1-1000)")
	if err := parseFlags(fs, args, 1); err != nil {
		return err
	}
	if *key == "" || *ns == "" || *reg == "" || *batch < 1 || *batch > 1000 {
		return fmt.Errorf("%w: import needs --key, --namespace, --registry and a --batch of 1 to 1000", errUsage)
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	doer := &retryDoer{inner: &http.Client{Timeout: 2 * time.Minute}, attempts: 6, base: 500 * time.Millisecond, sleep: wait}
	api, err := client.NewClientWithResponses(strings.TrimRight(*baseURL, "/"), client.WithHTTPClient(doer),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+*key)
			return nil
		}))
	if err != nil {
		return err
	}
	im := &importer{api: api, ns: *ns, reg: *reg, batch: *batch, out: stdout, started: time.Now()}
	if f, ok := stderr.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			im.progress = stderr
		}
	}
	err = im.run(ctx, in)
	if im.progress != nil {
		fmt.Fprintln(im.progress)
	}
	fmt.Fprintf(stdout, "imported %d record(s), skipped %d already present, in %d batch(es), %s\n",
		im.added, im.skipped, im.batches, time.Since(im.started).Round(time.Millisecond))
	return err
}

// pending is a parsed line waiting for its batch.
type pending struct {
	line int
	body client.AddRecordRequest
}

func (im *importer) run(ctx context.Context, in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 2<<20) // one record body is at most 1 MiB
	var batch []pending
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		body, err := parseLine(raw)
		if err != nil {
			return fmt.Errorf("line %d: %v (the %d record(s) before it were imported in whole batches)", line, err, im.added+im.skipped)
		}
		batch = append(batch, pending{line: line, body: body})
		if len(batch) == im.batch {
			if err := im.send(ctx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("line %d: %v", line+1, err)
	}
	if len(batch) > 0 {
		return im.send(ctx, batch)
	}
	return nil
}

// parseLine checks one NDJSON line strictly and decodes it as an add-record body.
func parseLine(raw []byte) (client.AddRecordRequest, error) {
	var body client.AddRecordRequest
	if _, err := proof.ParseExactJSON(raw, 64); err != nil { // a number the server would refuse is named here, before any batch
		return body, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		return body, fmt.Errorf("not an add-record body: %v", err)
	}
	if body.RecordName == "" {
		return body, errors.New("record_name is missing")
	}
	return body, nil
}

// send adds a batch; a batch refused because some names exist already is sent again without
// them (a rerun skips what an earlier run imported).
func (im *importer) send(ctx context.Context, batch []pending) error {
	records := make([]client.AddRecordRequest, len(batch))
	for i, p := range batch {
		records[i] = p.body
	}
	res, err := im.api.AddRecordsWithResponse(ctx, im.ns, im.reg, client.AddRecordsJSONRequestBody{Records: records})
	if err != nil {
		return fmt.Errorf("lines %d-%d: %w", batch[0].line, batch[len(batch)-1].line, err)
	}
	switch res.StatusCode() {
	case http.StatusCreated:
		im.added += len(batch)
		im.batches++
		im.report()
		return nil
	case http.StatusConflict:
		fresh, err := im.withoutExisting(ctx, batch)
		if err != nil {
			return err
		}
		if len(fresh) == len(batch) {
			return fmt.Errorf("lines %d-%d: %s", batch[0].line, batch[len(batch)-1].line, message(res.Body))
		}
		im.skipped += len(batch) - len(fresh)
		if len(fresh) == 0 {
			im.report()
			return nil
		}
		return im.send(ctx, fresh)
	case http.StatusBadRequest:
		return fmt.Errorf("%s: %s", lineOf(batch, res.Body), message(res.Body))
	}
	return fmt.Errorf("lines %d-%d: the service answered %d: %s", batch[0].line, batch[len(batch)-1].line, res.StatusCode(), message(res.Body))
}

// withoutExisting drops the records whose names the registry already has.
func (im *importer) withoutExisting(ctx context.Context, batch []pending) ([]pending, error) {
	var fresh []pending
	for _, p := range batch {
		r, err := im.api.LookupRecordWithResponse(ctx, im.ns, im.reg, p.body.RecordName, nil)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", p.line, err)
		}
		switch r.StatusCode() {
		case http.StatusOK:
		case http.StatusNotFound:
			fresh = append(fresh, p)
		default:
			return nil, fmt.Errorf("line %d: lookup answered %d", p.line, r.StatusCode())
		}
	}
	return fresh, nil
}

// lineOf names the input line of a 400 that names records[i].
func lineOf(batch []pending, body []byte) string {
	msg := message(body)
	if i := strings.Index(msg, "records["); i >= 0 {
		if n, err := strconv.Atoi(strings.SplitN(msg[i+len("records["):], "]", 2)[0]); err == nil && n < len(batch) {
			return fmt.Sprintf("line %d", batch[n].line)
		}
	}
	return fmt.Sprintf("lines %d-%d", batch[0].line, batch[len(batch)-1].line)
}

func message(body []byte) string {
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &m) == nil && m.Message != "" {
		return m.Message
	}
	return strings.TrimSpace(string(body))
}

func (im *importer) report() {
	if im.progress == nil || time.Since(im.lastReport) < 100*time.Millisecond {
		return
	}
	im.lastReport = time.Now()
	rate := float64(im.added) / time.Since(im.started).Seconds()
	fmt.Fprintf(im.progress, "\r%s %d imported, %d skipped, %.0f records/s", spinner(im.batches), im.added, im.skipped, rate)
}

func spinner(n int) string { return string(`|/-\`[n%4]) }
