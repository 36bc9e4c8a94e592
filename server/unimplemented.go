package server

import (
	"context"

	"svc/gen"
)

// Operations whose issue has not landed yet answer 501 Not implemented.

// CheckVerification is not implemented yet.
func (s *Server) CheckVerification(ctx context.Context, _ gen.CheckVerificationRequestObject) (gen.CheckVerificationResponseObject, error) {
	return nil, errNotImplemented
}

// GenerateDnsTxt is not implemented yet.
func (s *Server) GenerateDnsTxt(ctx context.Context, _ gen.GenerateDnsTxtRequestObject) (gen.GenerateDnsTxtResponseObject, error) {
	return nil, errNotImplemented
}

// GetDnsTxt is not implemented yet.
func (s *Server) GetDnsTxt(ctx context.Context, _ gen.GetDnsTxtRequestObject) (gen.GetDnsTxtResponseObject, error) {
	return nil, errNotImplemented
}

// ListNotificationHistory is not implemented yet.
func (s *Server) ListNotificationHistory(ctx context.Context, _ gen.ListNotificationHistoryRequestObject) (gen.ListNotificationHistoryResponseObject, error) {
	return nil, errNotImplemented
}

// ListPendingNotifications is not implemented yet.
func (s *Server) ListPendingNotifications(ctx context.Context, _ gen.ListPendingNotificationsRequestObject) (gen.ListPendingNotificationsResponseObject, error) {
	return nil, errNotImplemented
}

// MarkAllNotificationsRead is not implemented yet.
func (s *Server) MarkAllNotificationsRead(ctx context.Context, _ gen.MarkAllNotificationsReadRequestObject) (gen.MarkAllNotificationsReadResponseObject, error) {
	return nil, errNotImplemented
}

// MarkNotificationRead is not implemented yet.
func (s *Server) MarkNotificationRead(ctx context.Context, _ gen.MarkNotificationReadRequestObject) (gen.MarkNotificationReadResponseObject, error) {
	return nil, errNotImplemented
}

// QueryRegistries is not implemented yet.
func (s *Server) QueryRegistries(ctx context.Context, _ gen.QueryRegistriesRequestObject) (gen.QueryRegistriesResponseObject, error) {
	return nil, errNotImplemented
}

// QueryRecords is not implemented yet.
func (s *Server) QueryRecords(ctx context.Context, _ gen.QueryRecordsRequestObject) (gen.QueryRecordsResponseObject, error) {
	return nil, errNotImplemented
}

// SearchRecords is not implemented yet.
func (s *Server) SearchRecords(ctx context.Context, _ gen.SearchRecordsRequestObject) (gen.SearchRecordsResponseObject, error) {
	return nil, errNotImplemented
}

// AcceptVerificationRequest is not implemented yet.
func (s *Server) AcceptVerificationRequest(ctx context.Context, _ gen.AcceptVerificationRequestRequestObject) (gen.AcceptVerificationRequestResponseObject, error) {
	return nil, errNotImplemented
}

// RejectVerificationRequest is not implemented yet.
func (s *Server) RejectVerificationRequest(ctx context.Context, _ gen.RejectVerificationRequestRequestObject) (gen.RejectVerificationRequestResponseObject, error) {
	return nil, errNotImplemented
}

// VerifyDomain is not implemented yet.
func (s *Server) VerifyDomain(ctx context.Context, _ gen.VerifyDomainRequestObject) (gen.VerifyDomainResponseObject, error) {
	return nil, errNotImplemented
}

// RemoveNamespaceVerification is not implemented yet.
func (s *Server) RemoveNamespaceVerification(ctx context.Context, _ gen.RemoveNamespaceVerificationRequestObject) (gen.RemoveNamespaceVerificationResponseObject, error) {
	return nil, errNotImplemented
}

// GetRegistriesByTag is not implemented yet.
func (s *Server) GetRegistriesByTag(ctx context.Context, _ gen.GetRegistriesByTagRequestObject) (gen.GetRegistriesByTagResponseObject, error) {
	return nil, errNotImplemented
}
