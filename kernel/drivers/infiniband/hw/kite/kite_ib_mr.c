// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite RoCEv2 driver: protection domains and memory regions. A user MR is
 * pinned (ib_umem) and described to the card by an MTT, an array of page
 * bus addresses in coherent memory that the card reads while the MR lives.
 */

#include <linux/dma-mapping.h>
#include <rdma/iter.h>

#include "kite_ib.h"

int kite_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibpd->device);
	struct kite_obj_out out;
	int err;

	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_ALLOC_PD, NULL, 0, &out,
			  sizeof(out));
	if (err)
		return err;
	to_kpd(ibpd)->pdn = le32_to_cpu(out.id);
	return 0;
}

int kite_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	kite_ib_destroy_obj(to_kdev(ibpd->device), KITE_CMD_OPCODE_DEALLOC_PD,
			    to_kpd(ibpd)->pdn);
	return 0;
}

/* Kernel consumers use bus addresses with the reserved lkey. */
struct ib_mr *kite_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct kite_ib_mr *mr;

	/* LKEY_PHYS is never an rkey: no remote access to all memory. */
	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->phys = true;
	mr->ibmr.lkey = KITE_LKEY_PHYS;
	mr->ibmr.rkey = KITE_LKEY_PHYS;
	return &mr->ibmr;
}

u32 kite_ib_mr_access(int access)
{
	u32 a = 0;

	if (access & IB_ACCESS_LOCAL_WRITE)
		a |= KITE_CREATE_MR_IN_ACCESS_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		a |= KITE_CREATE_MR_IN_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		a |= KITE_CREATE_MR_IN_ACCESS_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		a |= KITE_CREATE_MR_IN_ACCESS_REMOTE_ATOMIC;
	if (access & IB_ACCESS_MW_BIND)
		a |= KITE_CREATE_MR_IN_ACCESS_MW_BIND;
	if (access & IB_ZERO_BASED)
		a |= KITE_CREATE_MR_IN_ACCESS_ZERO_BASED;
	return a;
}

static void kite_ib_mtt_free(struct kite_ib_dev *dev, struct kite_ib_mtt *mtt)
{
	if (mtt->pages)
		dma_free_coherent(kite_ib_dma_dev(dev), mtt->size, mtt->pages,
				  mtt->dma);
	mtt->pages = NULL;
}

/* Fill an MTT with the umem's blocks of pgsz bytes. */
static int kite_ib_mtt_fill(struct kite_ib_dev *dev, struct kite_ib_mtt *mtt,
			    struct ib_umem *umem, unsigned long pgsz)
{
	struct ib_block_iter biter;
	u32 i = 0;

	mtt->count = ib_umem_num_dma_blocks(umem, pgsz);
	mtt->size = PAGE_ALIGN(mtt->count * sizeof(u64));
	mtt->pages = dma_alloc_coherent(kite_ib_dma_dev(dev), mtt->size,
					&mtt->dma, GFP_KERNEL);
	if (!mtt->pages)
		return -ENOMEM;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz)
		mtt->pages[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	return 0;
}

/* Register a pinned umem on the card: CREATE_MR with its MTT. */
static int kite_ib_mr_register(struct kite_ib_dev *dev, struct kite_ib_mr *mr,
			       u32 pdn, u64 iova, u64 length, u32 access,
			       u8 flags)
{
	struct kite_create_mr_in in = {};
	struct kite_obj_out out;
	unsigned long pgsz;
	int err;

	pgsz = ib_umem_find_best_pgsz(mr->umem,
				      dev->kadev->page_size_cap &
				      GENMASK_ULL(30, 12), iova);
	if (!pgsz)
		return -EINVAL;
	err = kite_ib_mtt_fill(dev, &mr->mtt, mr->umem, pgsz);
	if (err)
		return err;

	in.iova = cpu_to_le64(iova);
	in.length = cpu_to_le64(length);
	in.mtt_addr = cpu_to_le64(mr->mtt.dma);
	in.mtt_count = cpu_to_le32(mr->mtt.count);
	in.pdn = cpu_to_le32(pdn);
	in.access = cpu_to_le32(access);
	in.page_shift = order_base_2(pgsz);
	in.flags = flags;
	/* A new variant per MR, so a stale key of a freed MR misses. */
	in.key_variant = atomic_inc_return(&dev->key_variant) & 0xff;
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_MR, &in, sizeof(in),
			  &out, sizeof(out));
	if (err) {
		kite_ib_mtt_free(dev, &mr->mtt);
		return err;
	}
	mr->ibmr.lkey = le32_to_cpu(out.id);
	mr->ibmr.rkey = mr->ibmr.lkey;
	mr->ibmr.length = length;
	mr->ibmr.iova = iova;
	return 0;
}

struct ib_mr *kite_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibpd->device);
	struct kite_ib_mr *mr;
	int err;

	if (access & ~(IB_ACCESS_SUPPORTED & ~IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > dev->kadev->max_mr_size)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = kite_ib_mr_register(dev, mr, to_kpd(ibpd)->pdn, virt_addr, length,
				  kite_ib_mr_access(access),
				  KITE_CREATE_MR_IN_FLAGS_USER);
	if (err)
		goto err_umem;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* A pinned dma-buf (GPUDirect: the exporter's memory, peer to peer). */
#ifdef KITE_IB_HAVE_DMABUF_ATTRS
struct ib_mr *kite_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access,
					 struct uverbs_attr_bundle *attrs)
#else
struct ib_mr *kite_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata)
#endif
{
	struct kite_ib_dev *dev = to_kdev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	struct kite_ib_mr *mr;
	int err;

	if (access & ~(IB_ACCESS_SUPPORTED & ~IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > dev->kadev->max_mr_size)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		goto err_free;
	}
	mr->umem = &umem_dmabuf->umem;
	err = kite_ib_mr_register(dev, mr, to_kpd(ibpd)->pdn, virt_addr, length,
				  kite_ib_mr_access(access),
				  KITE_CREATE_MR_IN_FLAGS_USER);
	if (err)
		goto err_umem;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Fast registration: the MR is created free on the card with room for
 * @max_num_sg pages. map_mr_sg fills its page list; an IB_WR_REG_MR work
 * request then makes it valid under the key the consumer chose, until a
 * LOCAL_INV or a peer's SEND_WITH_INV frees it again.
 */
struct ib_mr *kite_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct kite_ib_dev *dev = to_kdev(ibpd->device);
	struct kite_create_mr_in in = {};
	struct kite_obj_out out;
	struct kite_ib_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > KITE_IB_MAX_FR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->fr_max = max_num_sg;
	mr->mtt.size = PAGE_ALIGN(max_num_sg * sizeof(u64));
	mr->mtt.pages = dma_alloc_coherent(kite_ib_dma_dev(dev), mr->mtt.size,
					   &mr->mtt.dma, GFP_KERNEL);
	if (!mr->mtt.pages) {
		err = -ENOMEM;
		goto err_free;
	}
	in.mtt_addr = cpu_to_le64(mr->mtt.dma);
	in.mtt_count = cpu_to_le32(max_num_sg);
	in.pdn = cpu_to_le32(to_kpd(ibpd)->pdn);
	in.page_shift = PAGE_SHIFT;
	in.flags = KITE_CREATE_MR_IN_FLAGS_FAST_REG;
	in.key_variant = atomic_inc_return(&dev->key_variant) & 0xff;
	err = kite_ib_cmd(dev, KITE_CMD_OPCODE_CREATE_MR, &in, sizeof(in),
			  &out, sizeof(out));
	if (err)
		goto err_mtt;
	mr->create_key = le32_to_cpu(out.id);
	mr->ibmr.lkey = mr->create_key;
	mr->ibmr.rkey = mr->create_key;
	return &mr->ibmr;

err_mtt:
	kite_ib_mtt_free(dev, &mr->mtt);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int kite_ib_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct kite_ib_mr *mr = to_kmr(ibmr);

	if (mr->mtt.count >= mr->fr_max)
		return -ENOMEM;
	mr->mtt.pages[mr->mtt.count++] = cpu_to_le64(addr);
	return 0;
}

int kite_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset)
{
	struct kite_ib_mr *mr = to_kmr(ibmr);

	/* The card reads the list only while the MR is valid (REG_MR on). */
	mr->mtt.count = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, kite_ib_set_page);
}

int kite_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct kite_ib_dev *dev = to_kdev(ibmr->device);
	struct kite_ib_mr *mr = to_kmr(ibmr);
	int err;

	if (!mr->phys) {
		/* A fast-reg MR's lkey carries the consumer's variant. */
		err = kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_MR,
					  mr->fr_max ? mr->create_key :
					  ibmr->lkey);
		/* The card may still read the MTT and the pages: keep both. */
		if (err && err != -ENOENT)
			return err;
		kite_ib_mtt_free(dev, &mr->mtt);
		ib_umem_release(mr->umem);
	}
	kfree(mr);
	return 0;
}

/*
 * The MR through which the card reads a user QP's or SRQ's rings: local
 * access only, in the object's PD.
 */
struct kite_ib_mr *kite_ib_ring_mr(struct kite_ib_dev *dev, u32 pdn,
				   struct ib_umem *umem, u64 iova)
{
	struct kite_ib_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = umem;
	err = kite_ib_mr_register(dev, mr, pdn, iova, umem->length, 0,
				  KITE_CREATE_MR_IN_FLAGS_USER);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return mr;
}

/*
 * The umem stays with the caller, who may release it only on success: on
 * failure the card may still read the rings, so MR and umem are leaked.
 */
int kite_ib_ring_mr_free(struct kite_ib_dev *dev, struct kite_ib_mr *mr)
{
	int err;

	err = kite_ib_destroy_obj(dev, KITE_CMD_OPCODE_DESTROY_MR,
				  mr->ibmr.lkey);
	if (err)
		return err;
	kite_ib_mtt_free(dev, &mr->mtt);
	kfree(mr);
	return 0;
}
