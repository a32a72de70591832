/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences between the kernels kite_ib.ko is built for (Debian's 6.1 and
 * 6.12), detected by feature in Kbuild: KITE_IB_HAVE_* says the newer API
 * is there. An in-tree build follows the in-tree API.
 */
#ifndef _KITE_IB_COMPAT_H
#define _KITE_IB_COMPAT_H

#include <rdma/uverbs_ioctl.h>

/*
 * 6.10 passes the attribute bundle, not the udata, to create_cq and
 * reg_user_mr_dmabuf: the prototypes choose, these get the udata back.
 */
#ifdef KITE_IB_HAVE_CQ_ATTRS
#define kite_ib_cq_udata()	(attrs ? &attrs->driver_udata : NULL)
#else
#define kite_ib_cq_udata()	(udata)
#endif

#endif /* _KITE_IB_COMPAT_H */
