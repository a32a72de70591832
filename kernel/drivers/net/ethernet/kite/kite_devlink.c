// SPDX-License-Identifier: GPL-2.0-only
/* Kite devlink: the device instance and `devlink dev info`. */

#include <net/devlink.h>

#include "kite.h"
#include "kite_compat.h"

static int kite_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct kite_dev *kdev = devlink_priv(devlink);
	char buf[32];
	int err;

	err = kite_devlink_info_driver_name_put(req, KITE_DRV_NAME);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%016llx", kdev->serial);
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;
	err = devlink_info_board_serial_number_put(req, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "0x%08x", kdev->hw_revision);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_BOARD_REV,
					     buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%u.%u.%u",
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_MAJOR, kdev->fw_version),
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_MINOR, kdev->fw_version),
		 (u32)FIELD_GET(KITE_REG_FW_VERSION_PATCH, kdev->fw_version));
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW,
						buf);
}

static const struct devlink_ops kite_devlink_ops = {
	.info_get = kite_devlink_info_get,
};

struct kite_dev *kite_devlink_alloc(struct device *dev)
{
	struct devlink *devlink;
	struct kite_dev *kdev;

	devlink = devlink_alloc(&kite_devlink_ops, sizeof(*kdev), dev);
	if (!devlink)
		return NULL;
	kdev = devlink_priv(devlink);
	kdev->devlink = devlink;
	mutex_init(&kdev->aux_lock);
	spin_lock_init(&kdev->link_lock);
	return kdev;
}

void kite_devlink_free(struct kite_dev *kdev)
{
	devlink_free(kdev->devlink);
}

void kite_devlink_register(struct kite_dev *kdev)
{
	devlink_register(kdev->devlink);
}

void kite_devlink_unregister(struct kite_dev *kdev)
{
	devlink_unregister(kdev->devlink);
}
