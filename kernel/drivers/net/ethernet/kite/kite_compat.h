/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences between the kernels kite.ko is built for (Debian's 6.1 and
 * 6.12). Everything version dependent lives here, detected by feature
 * rather than by version number; the out-of-tree Kbuild file defines the
 * KITE_HAVE_* symbols it finds in the target kernel's headers.
 */
#ifndef _KITE_COMPAT_H
#define _KITE_COMPAT_H

#include <net/devlink.h>

/* 6.6 split page_pool.h into types and helpers. */
#ifdef KITE_HAVE_PAGE_POOL_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/* Until 6.2 drivers reported their name; later the core does it. */
static inline int kite_devlink_info_driver_name_put(struct devlink_info_req *req,
						    const char *name)
{
#ifdef KITE_HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
	return devlink_info_driver_name_put(req, name);
#else
	return 0;
#endif
}

#endif /* _KITE_COMPAT_H */
