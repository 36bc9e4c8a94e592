package server

import (
	"context"
	"fmt"

	"github.com/svc-directory/svc/gen"
)

// The draft side of publishing: a record saved as a draft, and drafts published in a batch.

// SaveRecordAsDraft adds one record as a draft.
func (s *Server) SaveRecordAsDraft(ctx context.Context, req gen.SaveRecordAsDraftRequestObject) (gen.SaveRecordAsDraftResponseObject, error) {
	rec, err := s.entries.SaveRecordAsDraft(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, recordInput(*req.Body))
	if err != nil {
		return nil, err
	}
	return gen.SaveRecordAsDraft201JSONResponse{Body: gen.RecordLookupResponse{Message: "Record saved as draft", Data: s.recordOut(rec)}}, nil
}

// PublishRecords publishes up to 1000 drafts, all or none.
func (s *Server) PublishRecords(ctx context.Context, req gen.PublishRecordsRequestObject) (gen.PublishRecordsResponseObject, error) {
	published, err := s.entries.PublishRecords(ctx, s.callerOf(ctx), req.Namespace, req.RegistryName, req.Body.Records)
	if err != nil {
		return nil, err
	}
	out := gen.PublishRecords200JSONResponse{Body: gen.PublishRecordsResponse{Message: fmt.Sprintf("%d records published", len(published))}}
	out.Body.Data.Records = make([]gen.AddedRecord, len(published))
	for i, a := range published {
		out.Body.Data.Records[i] = gen.AddedRecord{RecordName: a.RecordName, RecordId: a.RecordID, Digest: a.Digest, Version: a.Version}
	}
	return out, nil
}
