from django.contrib import admin

from .models import AuditLog


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ["created_at", "project", "item", "actor", "action", "from_state", "to_state", "reason"]
    list_filter = ["action", "project"]
    raw_id_fields = ["item"]
    list_select_related = ["project", "item", "actor"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # the audit log is append-only
