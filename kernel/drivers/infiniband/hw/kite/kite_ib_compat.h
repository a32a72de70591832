/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences between the kernels kite_ib.ko is built for (Debian's 6.1 and
 * 6.12), detected by feature in Kbuild: KITE_IB_HAVE_* says the newer API
 * is there. An in-tree build follows the in-tree API.
 */
#ifndef _KITE_IB_COMPAT_H
#define _KITE_IB_COMPAT_H

#include <rdma/uverbs_ioctl.h>

/* 6.10 passes the attribute bundle, not the udata, to create_cq. */
#ifdef KITE_IB_HAVE_CQ_ATTRS
#define KITE_IB_CQ_LAST_ARG	struct uverbs_attr_bundle *attrs
#define kite_ib_cq_udata()	(attrs ? &attrs->driver_udata : NULL)
#else
#define KITE_IB_CQ_LAST_ARG	struct ib_udata *udata
#define kite_ib_cq_udata()	(udata)
#endif

/* ... and to reg_user_mr_dmabuf. */
#ifdef KITE_IB_HAVE_DMABUF_ATTRS
#define KITE_IB_DMABUF_LAST_ARG	struct uverbs_attr_bundle *attrs
#define kite_ib_dmabuf_udata()	(attrs ? &attrs->driver_udata : NULL)
#else
#define KITE_IB_DMABUF_LAST_ARG	struct ib_udata *udata
#define kite_ib_dmabuf_udata()	(udata)
#endif

#endif /* _KITE_IB_COMPAT_H */
