package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/svc-directory/svc/directory"
	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/proof"
	"github.com/svc-directory/svc/store"
)

const (
	msgVerified = "Verification successful"
	msgFailed   = msgVerificationFailed
)

// checkLookup verifies submitted lookup data as a trustworthy verifier must: the proof is of the
// right kind and a valid year, its identifiers match the data, the recomputed digest equals
// proof.digest, and that digest is the one this directory stored for that entry's version on
// this network. It returns the reason of the first failure ("" when it verifies) and what the
// directory holds for the entry (zero when the entry is unknown).
func (s *Server) checkLookup(ctx context.Context, kind proof.Kind, data map[string]any) (string, store.StoredVersion, error) {
	var held store.StoredVersion
	p, _ := data["proof"].(map[string]any)
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	entryID := str(data, proof.IDField(kind))
	version := str(data, "version")
	if entryID != "" && version != "" {
		var err error
		held, err = s.store.EntryVersion(ctx, kind, entryID, version)
		if err != nil && !errors.Is(err, directory.ErrNotFound) {
			return "", held, err
		}
		if held.Draft { // drafts are private: to anyone but the namespace's owner and delegates it is not there
			if sees, err := s.seesDrafts(ctx, held.NamespaceID); err != nil || !sees {
				hidden := held
				held = store.StoredVersion{}
				if err != nil {
					return "", held, err
				}
				public, err := s.store.RecordVersions(ctx, hidden.RecordID, false)
				if err != nil {
					return "", held, err
				}
				if len(public) == 0 {
					return fmt.Sprintf("no %s %q exists in this directory", kind, entryID), held, nil
				}
				return fmt.Sprintf("version %s of this %s never existed in this directory", version, kind), held, nil
			}
		}
	}
	if err := proof.CheckLookup(kind, data, s.now().UTC().Year()); err != nil {
		return err.Error(), held, nil
	}
	claimed, ptype := str(p, "digest"), str(p, "type")
	if held.Digest == "" {
		exists, err := s.store.EntryExists(ctx, kind, entryID)
		if err != nil {
			return "", held, err
		}
		if exists {
			return fmt.Sprintf("version %s of this %s never existed in this directory", version, kind), held, nil
		}
		return fmt.Sprintf("no %s %q exists in this directory", kind, entryID), held, nil
	}
	if held.Digest != claimed {
		return "the digest differs from the one this directory stored for that version", held, nil
	}
	if held.ProofType != ptype {
		return fmt.Sprintf("proof.type %s differs from the stored %s", ptype, held.ProofType), held, nil
	}
	if str(p, "network_genesis") != s.networkGenesis {
		return "proof.network_genesis is not this directory's network", held, nil
	}
	return "", held, nil
}

// Bounds of what a verification log keeps of one attempt (bytes): the log must not grow with
// the size of what a caller submits.
const (
	logValueMax   = 100 // each kept identifier, version or digest (real ones are under 70)
	logMessageMax = 200 // the submitted message
	logReasonMax  = 500 // why the attempt failed
)

// The parts of a submitted lookup response the check compares, besides recomputing the digest:
// the entry's identifiers, version and digest, and the proof's fields.
var (
	loggedDataFields  = []string{"namespace_id", "registry_id", "record_id", "registry_name", "record_name", "version", "version_count", "digest"}
	loggedProofFields = []string{"type", "namespace_did", "registry_identifier", "record_identifier", "creator_did", "digest", "network_genesis"}
)

// loggedRequest is what the verification log keeps of a submitted lookup response: the fields
// above (strings shortened to logValueMax, numbers kept, other types dropped) and the
// message shortened. The rest (description, details, schema, meta, ...) only entered the
// recomputed digest, and is not kept: a log entry stays within a few hundred bytes whatever
// the size of the request.
func loggedRequest(env gen.LookupResponseEnvelope) map[string]any {
	pick := func(from map[string]any, fields []string) map[string]any {
		out := map[string]any{}
		for _, f := range fields {
			switch v := from[f].(type) {
			case string:
				out[f] = clip(v, logValueMax)
			case float64:
				out[f] = v
			case json.Number:
				if len(v) <= logValueMax {
					out[f] = v
				}
			}
		}
		return out
	}
	data := pick(env.Data, loggedDataFields)
	if p, ok := env.Data["proof"].(map[string]any); ok {
		data["proof"] = pick(p, loggedProofFields)
	}
	out := map[string]any{"data": data}
	if env.Message != nil {
		out["message"] = clip(*env.Message, logMessageMax)
	}
	return out
}

// clip shortens s to at most n bytes (cut on a character boundary), marking a cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// verify checks and logs one attempt; it reports whether the response verifies. A verify whose
// log cannot be written fails with an error (500), never as a pass.
func (s *Server) verify(ctx context.Context, kind proof.Kind, env gen.LookupResponseEnvelope) (bool, error) {
	reason, held, err := s.checkLookup(ctx, kind, env.Data)
	if err != nil {
		return false, err
	}
	u := caller(ctx)
	entryID, _ := env.Data[proof.IDField(kind)].(string)
	l := store.VerificationLog{LookupType: kind.String(), VerifiedID: clip(entryID, logValueMax), NamespaceID: held.NamespaceID,
		RegistryID: held.RegistryID, RecordID: held.RecordID, UserID: u.ID, VerifiedBy: s.didOf(u),
		Result: store.ResultSuccess, Reason: clip(reason, logReasonMax), Request: loggedRequest(env)}
	if reason != "" {
		l.Result = store.ResultFailed
	}
	if _, err := s.store.AddVerificationLog(ctx, l); err != nil {
		return false, fmt.Errorf("verification log: %w", err)
	}
	if s.metrics != nil {
		s.metrics.verifications.WithLabelValues(kind.String(), l.Result).Inc()
	}
	return reason == "", nil
}

// VerifyNamespaceLookup verifies a namespace lookup response.
func (s *Server) VerifyNamespaceLookup(ctx context.Context, req gen.VerifyNamespaceLookupRequestObject) (gen.VerifyNamespaceLookupResponseObject, error) {
	ok, err := s.verify(ctx, proof.KindNamespace, req.Body.NamespaceLookupResponse)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return gen.VerifyNamespaceLookup200JSONResponse{VerifiedJSONResponse: gen.VerifiedJSONResponse{Body: gen.Message{Message: msgVerified}}}, nil
	}
	return gen.VerifyNamespaceLookup400JSONResponse{VerificationFailedJSONResponse: verificationFailedBody(msgFailed)}, nil
}

// VerifyRegistryLookup verifies a registry lookup response.
func (s *Server) VerifyRegistryLookup(ctx context.Context, req gen.VerifyRegistryLookupRequestObject) (gen.VerifyRegistryLookupResponseObject, error) {
	ok, err := s.verify(ctx, proof.KindRegistry, req.Body.RegistryLookupResponse)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return gen.VerifyRegistryLookup200JSONResponse{VerifiedJSONResponse: gen.VerifiedJSONResponse{Body: gen.Message{Message: msgVerified}}}, nil
	}
	return gen.VerifyRegistryLookup400JSONResponse{VerificationFailedJSONResponse: verificationFailedBody(msgFailed)}, nil
}

// VerifyRecordLookup verifies a record lookup response.
func (s *Server) VerifyRecordLookup(ctx context.Context, req gen.VerifyRecordLookupRequestObject) (gen.VerifyRecordLookupResponseObject, error) {
	ok, err := s.verify(ctx, proof.KindRecord, req.Body.RecordLookupResponse)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return gen.VerifyRecordLookup200JSONResponse{VerifiedJSONResponse: gen.VerifiedJSONResponse{Body: gen.Message{Message: msgVerified}}}, nil
	}
	return gen.VerifyRecordLookup400JSONResponse{VerificationFailedJSONResponse: verificationFailedBody(msgFailed)}, nil
}

func pageOf(page, size *int64) (int, int) {
	p, n := 1, 20
	if page != nil {
		p = int(*page)
	}
	if size != nil {
		n = int(*size)
	}
	return p, n
}

// logsOf reads a page of an entry's log: members of its namespace see every attempt, others
// their own.
func (s *Server) logsOf(ctx context.Context, kind proof.Kind, namespaceID, entryID string, page, size *int64) (gen.VerificationLogsResponse, error) {
	role, err := s.memberOf(ctx, namespaceID)
	if err != nil {
		return gen.VerificationLogsResponse{}, err
	}
	only := ""
	if role == "" {
		only = caller(ctx).ID
	}
	p, n := pageOf(page, size)
	logs, total, err := s.store.VerificationLogs(ctx, kind.String(), entryID, only, p, n)
	if err != nil {
		return gen.VerificationLogsResponse{}, err
	}
	out := gen.VerificationLogsResponse{Message: "Verification logs retrieved"}
	out.Data.VerificationCount, out.Data.Page, out.Data.PageSize = total, int64(p), int64(n)
	out.Data.Logs = make([]gen.VerificationLog, len(logs))
	for i, l := range logs {
		out.Data.Logs[i] = gen.VerificationLog{Id: l.ID, LookupType: gen.VerificationLogLookupType(l.LookupType), VerifiedId: l.VerifiedID,
			VerifiedBy: l.VerifiedBy, Result: gen.VerificationLogResult(l.Result), CreatedAt: ts(l.CreatedAt), Request: obj(l.Request)}
	}
	return out, nil
}

// GetNamespaceVerificationLogs reads a namespace's verification log.
func (s *Server) GetNamespaceVerificationLogs(ctx context.Context, req gen.GetNamespaceVerificationLogsRequestObject) (gen.GetNamespaceVerificationLogsResponseObject, error) {
	id, err := s.resolveNamespace(ctx, req.Namespace)
	if err != nil {
		return nil, err
	}
	out, err := s.logsOf(ctx, proof.KindNamespace, id, id, req.Params.Page, req.Params.PageSize)
	if err != nil {
		return nil, err
	}
	return gen.GetNamespaceVerificationLogs200JSONResponse(out), nil
}

// GetRegistryVerificationLogs reads a registry's verification log.
func (s *Server) GetRegistryVerificationLogs(ctx context.Context, req gen.GetRegistryVerificationLogsRequestObject) (gen.GetRegistryVerificationLogsResponseObject, error) {
	reg, err := s.lookupRegistry(ctx, req.Namespace, req.RegistryName, nil, nil)
	if err != nil {
		return nil, err
	}
	out, err := s.logsOf(ctx, proof.KindRegistry, reg.NamespaceID, reg.RegistryID, req.Params.Page, req.Params.PageSize)
	if err != nil {
		return nil, err
	}
	return gen.GetRegistryVerificationLogs200JSONResponse(out), nil
}

// GetRecordVerificationLogs reads a record's verification log.
func (s *Server) GetRecordVerificationLogs(ctx context.Context, req gen.GetRecordVerificationLogsRequestObject) (gen.GetRecordVerificationLogsResponseObject, error) {
	rec, err := s.lookupRecord(ctx, req.Namespace, req.RegistryName, req.RecordName, nil, nil)
	if err != nil {
		return nil, err
	}
	out, err := s.logsOf(ctx, proof.KindRecord, rec.NamespaceID, rec.RecordID, req.Params.Page, req.Params.PageSize)
	if err != nil {
		return nil, err
	}
	return gen.GetRecordVerificationLogs200JSONResponse(out), nil
}
