from typing import Literal

V1WebhookDeliveriesStatus = Literal["delivered", "failed", "pending", "refused"]

V1_WEBHOOK_DELIVERIES_STATUS_VALUES: set[V1WebhookDeliveriesStatus] = {
    "delivered",
    "failed",
    "pending",
    "refused",
}


def check_v1_webhook_deliveries_status(value: str) -> V1WebhookDeliveriesStatus:
    if value in V1_WEBHOOK_DELIVERIES_STATUS_VALUES:
        return value
    raise TypeError(
        f"Unexpected value {value!r}. Expected one of {V1_WEBHOOK_DELIVERIES_STATUS_VALUES!r}"
    )
