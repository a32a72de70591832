/* SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file */
/*
 * Provider side of the kite uverbs ABI (kernel/include/uapi/rdma/kite-abi.h,
 * copied into rdma-core's kernel-headers/rdma/ by tools/rdma-core/build.sh).
 */
#ifndef __KITE_ABI_H__
#define __KITE_ABI_H__

#include <infiniband/kern-abi.h>
#include <rdma/kite-abi.h>
#include <kernel-abi/kite-abi.h>

DECLARE_DRV_CMD(kite_cmd_alloc_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, kite_alloc_ucontext_resp);
DECLARE_DRV_CMD(kite_cmd_create_cq, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		kite_create_cq_req, kite_create_cq_resp);
DECLARE_DRV_CMD(kite_cmd_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		kite_resize_cq_req, kite_resize_cq_resp);
DECLARE_DRV_CMD(kite_cmd_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		kite_create_qp_req, kite_create_qp_resp);
DECLARE_DRV_CMD(kite_cmd_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		kite_create_srq_req, kite_create_srq_resp);
DECLARE_DRV_CMD(kite_cmd_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, kite_create_ah_resp);

#endif
