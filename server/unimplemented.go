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

// CreateNamespace is not implemented yet.
func (s *Server) CreateNamespace(ctx context.Context, _ gen.CreateNamespaceRequestObject) (gen.CreateNamespaceResponseObject, error) {
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

// LookupNamespace is not implemented yet.
func (s *Server) LookupNamespace(ctx context.Context, _ gen.LookupNamespaceRequestObject) (gen.LookupNamespaceResponseObject, error) {
	return nil, errNotImplemented
}

// LookupRegistry is not implemented yet.
func (s *Server) LookupRegistry(ctx context.Context, _ gen.LookupRegistryRequestObject) (gen.LookupRegistryResponseObject, error) {
	return nil, errNotImplemented
}

// LookupRecord is not implemented yet.
func (s *Server) LookupRecord(ctx context.Context, _ gen.LookupRecordRequestObject) (gen.LookupRecordResponseObject, error) {
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

// VerifyNamespaceLookup is not implemented yet.
func (s *Server) VerifyNamespaceLookup(ctx context.Context, _ gen.VerifyNamespaceLookupRequestObject) (gen.VerifyNamespaceLookupResponseObject, error) {
	return nil, errNotImplemented
}

// VerifyRecordLookup is not implemented yet.
func (s *Server) VerifyRecordLookup(ctx context.Context, _ gen.VerifyRecordLookupRequestObject) (gen.VerifyRecordLookupResponseObject, error) {
	return nil, errNotImplemented
}

// VerifyRegistryLookup is not implemented yet.
func (s *Server) VerifyRegistryLookup(ctx context.Context, _ gen.VerifyRegistryLookupRequestObject) (gen.VerifyRegistryLookupResponseObject, error) {
	return nil, errNotImplemented
}

// ListNamespaceVersions is not implemented yet.
func (s *Server) ListNamespaceVersions(ctx context.Context, _ gen.ListNamespaceVersionsRequestObject) (gen.ListNamespaceVersionsResponseObject, error) {
	return nil, errNotImplemented
}

// ListRegistryVersions is not implemented yet.
func (s *Server) ListRegistryVersions(ctx context.Context, _ gen.ListRegistryVersionsRequestObject) (gen.ListRegistryVersionsResponseObject, error) {
	return nil, errNotImplemented
}

// ListRecordVersions is not implemented yet.
func (s *Server) ListRecordVersions(ctx context.Context, _ gen.ListRecordVersionsRequestObject) (gen.ListRecordVersionsResponseObject, error) {
	return nil, errNotImplemented
}

// AddDelegate is not implemented yet.
func (s *Server) AddDelegate(ctx context.Context, _ gen.AddDelegateRequestObject) (gen.AddDelegateResponseObject, error) {
	return nil, errNotImplemented
}

// CreateRegistry is not implemented yet.
func (s *Server) CreateRegistry(ctx context.Context, _ gen.CreateRegistryRequestObject) (gen.CreateRegistryResponseObject, error) {
	return nil, errNotImplemented
}

// GetDelegates is not implemented yet.
func (s *Server) GetDelegates(ctx context.Context, _ gen.GetDelegatesRequestObject) (gen.GetDelegatesResponseObject, error) {
	return nil, errNotImplemented
}

// GetNamespaceVerificationLogs is not implemented yet.
func (s *Server) GetNamespaceVerificationLogs(ctx context.Context, _ gen.GetNamespaceVerificationLogsRequestObject) (gen.GetNamespaceVerificationLogsResponseObject, error) {
	return nil, errNotImplemented
}

// RemoveDelegate is not implemented yet.
func (s *Server) RemoveDelegate(ctx context.Context, _ gen.RemoveDelegateRequestObject) (gen.RemoveDelegateResponseObject, error) {
	return nil, errNotImplemented
}

// UpdateNamespace is not implemented yet.
func (s *Server) UpdateNamespace(ctx context.Context, _ gen.UpdateNamespaceRequestObject) (gen.UpdateNamespaceResponseObject, error) {
	return nil, errNotImplemented
}

// RemoveNamespaceVerification is not implemented yet.
func (s *Server) RemoveNamespaceVerification(ctx context.Context, _ gen.RemoveNamespaceVerificationRequestObject) (gen.RemoveNamespaceVerificationResponseObject, error) {
	return nil, errNotImplemented
}

// ActivateRegistry is not implemented yet.
func (s *Server) ActivateRegistry(ctx context.Context, _ gen.ActivateRegistryRequestObject) (gen.ActivateRegistryResponseObject, error) {
	return nil, errNotImplemented
}

// AddRecord is not implemented yet.
func (s *Server) AddRecord(ctx context.Context, _ gen.AddRecordRequestObject) (gen.AddRecordResponseObject, error) {
	return nil, errNotImplemented
}

// AddRecords is not implemented yet.
func (s *Server) AddRecords(ctx context.Context, _ gen.AddRecordsRequestObject) (gen.AddRecordsResponseObject, error) {
	return nil, errNotImplemented
}

// DeactivateRegistry is not implemented yet.
func (s *Server) DeactivateRegistry(ctx context.Context, _ gen.DeactivateRegistryRequestObject) (gen.DeactivateRegistryResponseObject, error) {
	return nil, errNotImplemented
}

// GetRegistryVerificationLogs is not implemented yet.
func (s *Server) GetRegistryVerificationLogs(ctx context.Context, _ gen.GetRegistryVerificationLogsRequestObject) (gen.GetRegistryVerificationLogsResponseObject, error) {
	return nil, errNotImplemented
}

// UpdateRegistry is not implemented yet.
func (s *Server) UpdateRegistry(ctx context.Context, _ gen.UpdateRegistryRequestObject) (gen.UpdateRegistryResponseObject, error) {
	return nil, errNotImplemented
}

// GetRecordVerificationLogs is not implemented yet.
func (s *Server) GetRecordVerificationLogs(ctx context.Context, _ gen.GetRecordVerificationLogsRequestObject) (gen.GetRecordVerificationLogsResponseObject, error) {
	return nil, errNotImplemented
}

// PublishRecord is not implemented yet.
func (s *Server) PublishRecord(ctx context.Context, _ gen.PublishRecordRequestObject) (gen.PublishRecordResponseObject, error) {
	return nil, errNotImplemented
}

// UpdateRecord is not implemented yet.
func (s *Server) UpdateRecord(ctx context.Context, _ gen.UpdateRecordRequestObject) (gen.UpdateRecordResponseObject, error) {
	return nil, errNotImplemented
}

// GetRegistriesByTag is not implemented yet.
func (s *Server) GetRegistriesByTag(ctx context.Context, _ gen.GetRegistriesByTagRequestObject) (gen.GetRegistriesByTagResponseObject, error) {
	return nil, errNotImplemented
}

// GetDidDocument is not implemented yet.
func (s *Server) GetDidDocument(ctx context.Context, _ gen.GetDidDocumentRequestObject) (gen.GetDidDocumentResponseObject, error) {
	return nil, errNotImplemented
}
