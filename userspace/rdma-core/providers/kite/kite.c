// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * Kite provider: device matching and context setup.
 *
 * kite_ib.ko is out of tree, so its ib_device reports RDMA_DRIVER_UNKNOWN and
 * the provider matches the PCI function (the ib_device's parent) by ID, or
 * the kite auxiliary device when the parent is that instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kite.h"

static void kite_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops kite_ctx_ops = {
	.query_device_ex = kite_query_device,
	.query_port = kite_query_port,
	.alloc_pd = kite_alloc_pd,
	.dealloc_pd = kite_dealloc_pd,
	.reg_mr = kite_reg_mr,
	.reg_dmabuf_mr = kite_reg_dmabuf_mr,
	.dereg_mr = kite_dereg_mr,
	.create_cq = kite_create_cq,
	.create_cq_ex = kite_create_cq_ex,
	.destroy_cq = kite_destroy_cq,
	.poll_cq = kite_poll_cq,
	.req_notify_cq = kite_req_notify_cq,
	.resize_cq = kite_resize_cq,
	.create_qp = kite_create_qp,
	.create_qp_ex = kite_create_qp_ex,
	.modify_qp = kite_modify_qp,
	.query_qp = kite_query_qp,
	.destroy_qp = kite_destroy_qp,
	.post_send = kite_post_send,
	.post_recv = kite_post_recv,
	.create_srq = kite_create_srq,
	.modify_srq = kite_modify_srq,
	.query_srq = kite_query_srq,
	.destroy_srq = kite_destroy_srq,
	.post_srq_recv = kite_post_srq_recv,
	.create_ah = kite_create_ah,
	.destroy_ah = kite_destroy_ah,
	.free_context = kite_free_context,
};

static struct verbs_context *kite_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data)
{
	struct kite_cmd_alloc_context_resp resp = {};
	struct ibv_get_context cmd = {};
	struct kite_context *ctx;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->ibv_ctx, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp)))
		goto err_free;

	if (!(resp.comp_mask & KITE_UCTX_RESP_BASE) || !resp.db_mmap_len) {
		verbs_err(&ctx->ibv_ctx, "kite: kernel sent no doorbell page\n");
		errno = EPROTO;
		goto err_free;
	}
	if (resp.spec_version >> 16 != KITE_SPEC_MAJOR) {
		verbs_err(&ctx->ibv_ctx, "kite: card spec %u.%u, provider %u.%u\n",
			  resp.spec_version >> 16, resp.spec_version & 0xffff,
			  KITE_SPEC_MAJOR, KITE_SPEC_MINOR);
		errno = EPROTO;
		goto err_free;
	}

	ctx->caps = resp.caps;
	ctx->max_inline = resp.max_inline;
	ctx->max_sge = min_t(uint32_t, resp.max_sge, KITE_MAX_GATHER);
	ctx->log_max_wqe = min_t(uint8_t, resp.log_max_wqe, KITE_MAX_LOG_RING);
	ctx->log_max_cqe = min_t(uint8_t, resp.log_max_cqe, KITE_MAX_LOG_RING);
	ctx->log_min_stride = max_t(uint8_t, resp.log_min_stride,
				    KITE_MIN_LOG_STRIDE);
	ctx->log_max_stride = min_t(uint8_t, resp.log_max_stride,
				    KITE_MAX_LOG_STRIDE);
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);

	ctx->db_len = resp.db_mmap_len;
	ctx->db = mmap(NULL, ctx->db_len, PROT_WRITE, MAP_SHARED, cmd_fd,
		       resp.db_mmap_key);
	if (ctx->db == MAP_FAILED)
		goto err_free;

	verbs_set_ops(&ctx->ibv_ctx, &kite_ctx_ops);
	return &ctx->ibv_ctx;

err_free:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	return NULL;
}

static void kite_free_context(struct ibv_context *ibctx)
{
	struct kite_context *ctx = to_kctx(ibctx);
	int i;

	munmap(ctx->db, ctx->db_len);
	for (i = 0; i < KITE_QP_TABLE_SIZE; i++)
		free(ctx->qp_table[i]);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *kite_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct kite_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void kite_device_free(struct verbs_device *vdev)
{
	free(container_of(vdev, struct kite_device, ibv_dev));
}

static const struct verbs_match_ent kite_match_table[] = {
	VERBS_PCI_MATCH(KITE_VENDOR_ID, KITE_PF_DEVICE_ID, NULL),
	VERBS_PCI_MATCH(KITE_VENDOR_ID, KITE_VF_DEVICE_ID, NULL),
	/* ib_device parented on the kite.rdma auxiliary device */
	VERBS_MODALIAS_MATCH("auxiliary:kite.rdma*", NULL),
	{},
};

static const struct verbs_device_ops kite_dev_ops = {
	.name = "kite",
	.match_min_abi_version = KITE_ABI_VERSION_MIN,
	.match_max_abi_version = KITE_ABI_VERSION,
	.match_table = kite_match_table,
	.alloc_device = kite_device_alloc,
	.uninit_device = kite_device_free,
	.alloc_context = kite_alloc_context,
};

PROVIDER_DRIVER(kite, kite_dev_ops);
