package server

import (
	"context"

	"github.com/svc-directory/svc/gen"
	"github.com/svc-directory/svc/store"
)

func notificationOut(n store.Notification) gen.Notification {
	var actor *string
	if n.ActorEmail != "" {
		actor = strPtr(n.ActorEmail)
	}
	return gen.Notification{Id: n.ID, RequestId: n.RequestID, NamespaceId: n.NamespaceID, TargetNamespaceId: n.TargetNamespaceID,
		RecipientEmail: n.RecipientEmail, ActorEmail: actor, Domain: n.Domain, EventType: gen.NotificationEventType(n.EventType),
		Title: n.Title, Message: n.Message, Metadata: obj(n.Metadata), IsRead: n.IsRead, ReadAt: tsPtr(n.ReadAt),
		CreatedAt: ts(n.CreatedAt), UpdatedAt: ts(n.UpdatedAt)}
}

// ListPendingNotifications lists the caller's unread notifications.
func (s *Server) ListPendingNotifications(ctx context.Context, _ gen.ListPendingNotificationsRequestObject) (gen.ListPendingNotificationsResponseObject, error) {
	ns, err := s.store.Notifications(ctx, caller(ctx).Email, true)
	if err != nil {
		return nil, err
	}
	out := gen.ListPendingNotifications200JSONResponse{Message: "Pending notifications", UnreadCount: int64(len(ns)), Data: make([]gen.Notification, len(ns))}
	for i, n := range ns {
		out.Data[i] = notificationOut(n)
	}
	return out, nil
}

// ListNotificationHistory lists all of the caller's notifications.
func (s *Server) ListNotificationHistory(ctx context.Context, _ gen.ListNotificationHistoryRequestObject) (gen.ListNotificationHistoryResponseObject, error) {
	ns, err := s.store.Notifications(ctx, caller(ctx).Email, false)
	if err != nil {
		return nil, err
	}
	out := gen.ListNotificationHistory200JSONResponse{Message: "Notification history", Data: make([]gen.NotificationSummary, len(ns))}
	for i, n := range ns {
		out.Data[i] = gen.NotificationSummary{Id: n.ID, RequestId: n.RequestID, RecipientEmail: n.RecipientEmail, Domain: n.Domain,
			EventType: gen.NotificationSummaryEventType(n.EventType), IsRead: n.IsRead, ReadAt: tsPtr(n.ReadAt)}
	}
	return out, nil
}

// MarkNotificationRead marks one of the caller's notifications read.
func (s *Server) MarkNotificationRead(ctx context.Context, req gen.MarkNotificationReadRequestObject) (gen.MarkNotificationReadResponseObject, error) {
	n, err := s.store.MarkNotificationRead(ctx, req.NotificationId, caller(ctx).Email)
	if err != nil {
		return nil, notFound(err, "Notification not found")
	}
	out := gen.MarkNotificationRead200JSONResponse{Body: gen.MarkReadResponse{Message: "Notification marked read"}}
	out.Body.Data.Id, out.Body.Data.IsRead, out.Body.Data.ReadAt = n.ID, n.IsRead, tsPtr(n.ReadAt)
	return out, nil
}

// MarkAllNotificationsRead marks all of the caller's notifications read.
func (s *Server) MarkAllNotificationsRead(ctx context.Context, _ gen.MarkAllNotificationsReadRequestObject) (gen.MarkAllNotificationsReadResponseObject, error) {
	n, err := s.store.MarkAllNotificationsRead(ctx, caller(ctx).Email)
	if err != nil {
		return nil, err
	}
	out := gen.MarkAllNotificationsRead200JSONResponse{Body: gen.MarkAllReadResponse{Message: "Notifications marked read"}}
	out.Body.Data.Affected = n
	return out, nil
}

// AcceptVerificationRequest attests the requester's domain.
func (s *Server) AcceptVerificationRequest(ctx context.Context, req gen.AcceptVerificationRequestRequestObject) (gen.AcceptVerificationRequestResponseObject, error) {
	u := caller(ctx)
	r, err := s.domains.Accept(ctx, req.RequestId, *u, s.didOf(u))
	if err != nil {
		return nil, notFound(err, "Verification request not found")
	}
	out := gen.AcceptVerificationRequest200JSONResponse{Body: gen.AcceptRequestResponse{Message: "Verification request accepted"}}
	out.Body.Data.RequestId, out.Body.Data.RegistryId, out.Body.Data.RecordId = r.RequestID, r.RegistryID, r.RecordID
	return out, nil
}

// RejectVerificationRequest declines a request.
func (s *Server) RejectVerificationRequest(ctx context.Context, req gen.RejectVerificationRequestRequestObject) (gen.RejectVerificationRequestResponseObject, error) {
	_, err := s.domains.Reject(ctx, req.RequestId, *caller(ctx))
	if err != nil {
		return nil, notFound(err, "Verification request not found")
	}
	return gen.RejectVerificationRequest200JSONResponse{MessageAfterWriteJSONResponse: gen.MessageAfterWriteJSONResponse{Body: gen.Message{Message: "Verification request rejected"}}}, nil
}

// ClearReadNotifications hides the caller's read notifications from their history.
func (s *Server) ClearReadNotifications(ctx context.Context, _ gen.ClearReadNotificationsRequestObject) (gen.ClearReadNotificationsResponseObject, error) {
	n, err := s.store.ClearReadNotifications(ctx, caller(ctx).Email)
	if err != nil {
		return nil, err
	}
	out := gen.ClearReadNotifications200JSONResponse{Body: gen.MarkAllReadResponse{Message: "Read notifications cleared"}}
	out.Body.Data.Affected = n
	return out, nil
}
