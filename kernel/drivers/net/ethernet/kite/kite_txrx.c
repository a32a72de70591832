// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite Ethernet datapath: scatter-gather transmit with checksum, TSO and
 * VLAN offloads; page_pool receive into order-0 pages, several per WQE
 * when a frame does not fit one page.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/tcp.h>

#include "kite.h"
#include "kite_compat.h"

u32 kite_rx_nsge(int mtu)
{
	u32 frame = KITE_RX_FRAME(mtu);

	if (frame <= KITE_RX_FIRST_LEN)
		return 1;
	return 1 + DIV_ROUND_UP(frame - KITE_RX_FIRST_LEN, PAGE_SIZE);
}

static u32 kite_txq_free(const struct kite_txq *txq)
{
	return txq->mask + 1 - (txq->pi - READ_ONCE(txq->ci));
}

static void *kite_sq_wqe(struct kite_txq *txq, u32 idx)
{
	return txq->ring + ((idx & txq->mask) << KITE_SQ_LOG_STRIDE);
}

static void kite_tx_unmap(struct kite_txq *txq, struct kite_tx_buf *buf)
{
	u32 i = 0;

	if (buf->head_mapped) {
		dma_unmap_single(txq->dmadev, buf->dma[0], buf->len[0],
				 DMA_TO_DEVICE);
		i = 1;
	}
	for (; i < buf->nr_maps; i++)
		dma_unmap_page(txq->dmadev, buf->dma[i], buf->len[i],
			       DMA_TO_DEVICE);
	buf->nr_maps = 0;
	buf->head_mapped = false;
}

static int kite_tx_map(struct kite_txq *txq, struct sk_buff *skb,
		       struct kite_tx_buf *buf, struct kite_wqe_sge *sge)
{
	u32 headlen = skb_headlen(skb);
	u32 i, n = 0;
	dma_addr_t dma;

	buf->nr_maps = 0;
	buf->head_mapped = false;
	if (headlen) {
		dma = dma_map_single(txq->dmadev, skb->data, headlen,
				     DMA_TO_DEVICE);
		if (dma_mapping_error(txq->dmadev, dma))
			return -ENOMEM;
		buf->dma[0] = dma;
		buf->len[0] = headlen;
		buf->head_mapped = true;
		n = 1;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 len = skb_frag_size(frag);

		if (!len)
			continue;
		dma = skb_frag_dma_map(txq->dmadev, frag, 0, len,
				       DMA_TO_DEVICE);
		if (dma_mapping_error(txq->dmadev, dma)) {
			buf->nr_maps = n;
			kite_tx_unmap(txq, buf);
			return -ENOMEM;
		}
		buf->dma[n] = dma;
		buf->len[n] = len;
		n++;
	}
	buf->nr_maps = n;
	for (i = 0; i < n; i++) {
		sge[i].addr = cpu_to_le64(buf->dma[i]);
		sge[i].len = cpu_to_le32(buf->len[i]);
		sge[i].lkey = cpu_to_le32(KITE_LKEY_PHYS);
	}
	return n;
}

/* Bytes of headers a TSO/USO super-frame replicates in every segment. */
u32 kite_gso_hlen(const struct sk_buff *skb)
{
	if (skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4)
		return skb_transport_offset(skb) + sizeof(struct udphdr);
	return skb_tcp_all_headers(skb);
}

/* The card refuses what it cannot segment (tx_bad_desc); refuse it here
 * first, so that a bogus request costs one counted drop and a rate-limited
 * message instead of an error completion.
 */
static bool kite_gso_ok(struct kite_txq *txq, struct sk_buff *skb)
{
	u32 mss = skb_shinfo(skb)->gso_size;
	u32 hlen = kite_gso_hlen(skb);
	const char *why = NULL;

	if (!mss)
		why = "gso_size 0";
	else if (hlen > KITE_MAX_TSO_HDR || hlen > skb_headlen(skb))
		why = "headers beyond the first gather entry";
	else if (skb->len > KITE_MAX_TSO_SIZE)
		why = "super-frame too long";
	else if (hlen + mss > KITE_RX_FRAME(KITE_MAX_MTU) - KITE_FCS_LEN)
		why = "segment longer than the largest frame";
	else if (!(skb_shinfo(skb)->gso_type &
		   (SKB_GSO_TCPV4 | SKB_GSO_TCPV6 | SKB_GSO_UDP_L4)))
		why = "unsupported gso_type";
	if (likely(!why))
		return true;
	net_warn_ratelimited("%s: dropping bogus GSO packet on SQ %u: %s (len %u, gso_size %u, hdr %u, type 0x%x)\n",
			     netdev_name(txq->ch->priv->netdev), txq->sqn, why,
			     skb->len, mss, hlen, skb_shinfo(skb)->gso_type);
	return false;
}

static void kite_tx_offloads(struct sk_buff *skb, struct kite_wqe_eth *eth,
			     struct kite_tx_buf *buf, struct kite_tx_stats *st)
{
	u8 flags = 0;

	buf->pkts = 1;
	buf->bytes = skb->len;
	if (skb_is_gso(skb)) {
		u32 hlen = kite_gso_hlen(skb);
		u32 type = skb_shinfo(skb)->gso_type;

		flags |= KITE_WQE_ETH_FLAGS_LSO;
		if (type & SKB_GSO_UDP_L4) {
			flags |= KITE_WQE_ETH_FLAGS_USO;
			st->uso++;
		} else {
			st->tso++;
		}
		if (skb->protocol == htons(ETH_P_IP) ||
		    (type & SKB_GSO_TCPV4))
			flags |= KITE_WQE_ETH_FLAGS_L3_CSUM;
		eth->mss = cpu_to_le16(skb_shinfo(skb)->gso_size);
		eth->hdr_len = cpu_to_le16(hlen);
		buf->pkts = skb_shinfo(skb)->gso_segs;
		buf->bytes += (buf->pkts - 1) * hlen;
	}
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		flags |= KITE_WQE_ETH_FLAGS_L4_CSUM;
		eth->csum_start = cpu_to_le16(skb_checksum_start_offset(skb));
		eth->csum_offset = cpu_to_le16(skb->csum_offset);
		st->csum++;
	}
	if (skb_vlan_tag_present(skb)) {
		flags |= KITE_WQE_ETH_FLAGS_VLAN_INSERT;
		eth->vlan_tci = cpu_to_le16(skb_vlan_tag_get(skb));
	}
	/* SO_NOFCS: the frame carries its own FCS and is sent unpadded. */
	if (unlikely(skb->no_fcs)) {
		flags |= KITE_WQE_ETH_FLAGS_NO_FCS;
		st->nofcs++;
	}
	eth->flags = flags;
}

netdev_tx_t kite_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_channel *ch = &priv->channels[skb_get_queue_mapping(skb)];
	struct kite_tx_stats *st = &ch->tx_stats;
	struct kite_txq *txq = &ch->txq;
	struct kite_wqe_ctrl *ctrl;
	struct kite_wqe_eth *eth;
	struct kite_tx_buf *buf;
	int nsge;

	if (unlikely(kite_txq_free(txq) < 1)) {
		/* The queue is stopped before the ring fills; not reached. */
		netif_tx_stop_queue(txq->ntxq);
		return NETDEV_TX_BUSY;
	}

	u64_stats_update_begin(&st->syncp);
	if (skb_is_gso(skb) && unlikely(!kite_gso_ok(txq, skb))) {
		st->bad_gso++;
		goto drop;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > KITE_TX_MAPS) {
		if (skb_linearize(skb))
			goto drop;
		st->linearize++;
	}

	ctrl = kite_sq_wqe(txq, txq->pi);
	eth = (struct kite_wqe_eth *)(ctrl + 1);
	buf = &txq->bufs[txq->pi & txq->mask];
	memset(ctrl, 0, 2 * KITE_DS_SIZE);

	nsge = kite_tx_map(txq, skb, buf, (struct kite_wqe_sge *)(eth + 1));
	if (nsge <= 0)
		goto drop;
	kite_tx_offloads(skb, eth, buf, st);
	buf->skb = skb;

	ctrl->opcode = KITE_WQE_OPCODE_ETH_TX;
	ctrl->flags = KITE_WQE_CTRL_FLAGS_SIGNALED;
	ctrl->num_ds = 1 + nsge;
	ctrl->wqe_index = cpu_to_le16(txq->pi);
	ctrl->qpn_push = cpu_to_le32(txq->sqn);
	u64_stats_update_end(&st->syncp);

	skb_tx_timestamp(skb);
	txq->pi++;

	if (unlikely(kite_txq_free(txq) < 1)) {
		netif_tx_stop_queue(txq->ntxq);
		u64_stats_update_begin(&st->syncp);
		st->stopped++;
		u64_stats_update_end(&st->syncp);
		/* Pairs with the barrier in kite_tx_poll(). */
		smp_mb();
		if (kite_txq_free(txq) >= 1)
			netif_tx_start_queue(txq->ntxq);
	}
	/* writel orders the WQE stores before the doorbell. */
	if (__netdev_tx_sent_queue(txq->ntxq, buf->bytes, netdev_xmit_more()))
		writel(kite_db_val(txq->sqn, txq->pi), txq->db + KITE_DB_SQ);
	return NETDEV_TX_OK;

drop:
	st->dropped++;
	u64_stats_update_end(&st->syncp);
	dev_kfree_skb_any(skb);
	/* A doorbell held back by xmit_more must still go out. */
	if (!netdev_xmit_more())
		writel(kite_db_val(txq->sqn, txq->pi), txq->db + KITE_DB_SQ);
	return NETDEV_TX_OK;
}

static void kite_cq_update_ci(struct kite_cq *cq, void __iomem *db)
{
	writel(kite_db_val(cq->cqn, cq->ci), db + KITE_DB_CQ_CI);
}

static void kite_tx_poll(struct kite_channel *ch, int budget)
{
	struct kite_txq *txq = &ch->txq;
	struct kite_tx_stats *st = &ch->tx_stats;
	struct kite_cq *cq = &txq->cq;
	u32 pkts = 0, bytes = 0, errors = 0, ci = txq->ci, cqes = 0;
	struct kite_cqe *cqe;

	while ((cqe = kite_cq_peek(cq))) {
		u16 idx = le16_to_cpu(cqe->wqe_index);
		u32 n = (u16)(idx - (u16)ci) + 1;

		cq->ci++;
		cqes++;
		if (unlikely(cqe->opcode != KITE_CQE_OPCODE_ETH_TX)) {
			errors++;
			net_warn_ratelimited("%s: TX error completion on SQ %u: WQE %u status %u\n",
					     netdev_name(ch->priv->netdev),
					     txq->sqn, idx, cqe->status);
		}
		if (unlikely(n > READ_ONCE(txq->pi) - ci)) {
			net_warn_ratelimited("%s: TX completion for WQE %u outside pi %u ci %u\n",
					     netdev_name(ch->priv->netdev),
					     idx, READ_ONCE(txq->pi), ci);
			continue;
		}
		while (n--) {
			struct kite_tx_buf *buf = &txq->bufs[ci & txq->mask];

			kite_tx_unmap(txq, buf);
			pkts += buf->pkts;
			bytes += buf->bytes;
			napi_consume_skb(buf->skb, budget);
			buf->skb = NULL;
			ci++;
		}
	}
	if (!cqes)
		return;
	/* Tell the card about the consumed CQEs before the freed slots can
	 * be reused by kite_start_xmit().
	 */
	kite_cq_update_ci(cq, txq->db);
	/* Slots are unmapped and freed before kite_start_xmit() sees them. */
	smp_store_release(&txq->ci, ci);

	u64_stats_update_begin(&st->syncp);
	st->packets += pkts;
	st->bytes += bytes;
	st->errors += errors;
	u64_stats_update_end(&st->syncp);
	netdev_tx_completed_queue(txq->ntxq, pkts, bytes);

	/* Pairs with the barrier in kite_start_xmit(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(txq->ntxq)) &&
	    kite_txq_free(txq) >= (txq->mask + 1) / 4 &&
	    READ_ONCE(ch->active)) {
		netif_tx_wake_queue(txq->ntxq);
		u64_stats_update_begin(&st->syncp);
		st->wake++;
		u64_stats_update_end(&st->syncp);
	}
}

void kite_txq_drain(struct kite_txq *txq)
{
	while (txq->ci != txq->pi) {
		struct kite_tx_buf *buf = &txq->bufs[txq->ci & txq->mask];

		kite_tx_unmap(txq, buf);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
		txq->ci++;
	}
	if (txq->ntxq)
		netdev_tx_reset_queue(txq->ntxq);
}

/* Post receive WQEs until the ring is full. Buffers a consumed WQE did not
 * use stay in its slot and are posted again.
 */
int kite_rxq_fill(struct kite_rxq *rxq)
{
	u32 size = rxq->mask + 1, posted = 0, i;
	int err = 0;

	while (rxq->pi - rxq->ci < size) {
		u32 slot = rxq->pi & rxq->mask;
		struct page **pages = &rxq->pages[slot * rxq->nsge];
		struct kite_wqe_sge *sge = rxq->ring + (slot << rxq->log_stride);
		u32 nent = (1U << rxq->log_stride) / sizeof(*sge);

		for (i = 0; i < rxq->nsge; i++) {
			if (pages[i])
				continue;
			pages[i] = page_pool_dev_alloc_pages(rxq->pool);
			if (!pages[i]) {
				err = -ENOMEM;
				goto out;
			}
		}
		for (i = 0; i < rxq->nsge; i++) {
			dma_addr_t dma = page_pool_get_dma_addr(pages[i]);
			u32 len = PAGE_SIZE;

			if (i == 0) {
				dma += KITE_RX_HEADROOM;
				len = KITE_RX_FIRST_LEN;
			}
			sge[i].addr = cpu_to_le64(dma);
			sge[i].len = cpu_to_le32(len);
			sge[i].lkey = cpu_to_le32(KITE_LKEY_PHYS);
		}
		/* A zero length ends the list early. */
		if (i < nent)
			sge[i].len = 0;
		rxq->pi++;
		posted++;
	}
out:
	if (err) {
		struct kite_rx_stats *st = &rxq->ch->rx_stats;

		u64_stats_update_begin(&st->syncp);
		st->alloc_fail++;
		u64_stats_update_end(&st->syncp);
	}
	if (posted && rxq->rqn && READ_ONCE(rxq->ch->active))
		writel(kite_db_val(rxq->rqn, rxq->pi), rxq->db + KITE_DB_RQ);
	return err;
}

void kite_rxq_drain(struct kite_rxq *rxq)
{
	u32 i, n = (rxq->mask + 1) * rxq->nsge;

	for (i = 0; i < n; i++) {
		if (!rxq->pages[i])
			continue;
		page_pool_put_full_page(rxq->pool, rxq->pages[i], false);
		rxq->pages[i] = NULL;
	}
}

static void kite_rx_sync(struct kite_rxq *rxq, struct page *page, u32 off,
			 u32 len)
{
	dma_sync_single_range_for_cpu(rxq->dmadev, page_pool_get_dma_addr(page),
				      off, len, DMA_FROM_DEVICE);
}

static struct sk_buff *kite_rx_build_skb(struct kite_rxq *rxq, u32 slot,
					 u32 byte_cnt)
{
	struct page **pages = &rxq->pages[slot * rxq->nsge];
	u32 len = min_t(u32, byte_cnt, KITE_RX_FIRST_LEN);
	u32 left = byte_cnt - len, i;
	struct sk_buff *skb;
	void *va;

	if (unlikely(!byte_cnt ||
		     byte_cnt > KITE_RX_FIRST_LEN + (rxq->nsge - 1) * PAGE_SIZE))
		return ERR_PTR(-EINVAL);

	kite_rx_sync(rxq, pages[0], KITE_RX_HEADROOM, len);
	va = page_address(pages[0]);
	net_prefetch(va + KITE_RX_HEADROOM);
	skb = napi_build_skb(va, PAGE_SIZE);
	if (unlikely(!skb))
		return NULL;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, KITE_RX_HEADROOM);
	skb_put(skb, len);
	pages[0] = NULL;

	for (i = 1; left; i++) {
		u32 flen = min_t(u32, left, PAGE_SIZE);

		kite_rx_sync(rxq, pages[i], 0, flen);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, pages[i], 0,
				flen, PAGE_SIZE);
		pages[i] = NULL;
		left -= flen;
	}
	return skb;
}

static void kite_rx_offloads(struct kite_rxq *rxq, struct kite_cqe *cqe,
			     struct sk_buff *skb, struct kite_rx_stats *st)
{
	netdev_features_t features = rxq->ch->priv->netdev->features;
	u8 flags = cqe->flags;

	/* TCP/UDP the card verified are CHECKSUM_UNNECESSARY; a wrong one
	 * is left to the stack (CHECKSUM_NONE) to count and drop; anything
	 * else gets the card's sum over the frame after the Ethernet header
	 * (CHECKSUM_COMPLETE), unless the FCS is kept in the frame.
	 */
	if (features & NETIF_F_RXCSUM) {
		if (flags & KITE_CQE_FLAGS_L4_OK) {
			skb->ip_summed = CHECKSUM_UNNECESSARY;
			st->csum_ok++;
		} else if (flags & KITE_CQE_FLAGS_L4_BAD) {
			st->csum_bad++;
		} else if (!(features & NETIF_F_RXFCS)) {
			u16 sum = le32_to_cpu(cqe->csum_syndrome);

			skb->ip_summed = CHECKSUM_COMPLETE;
			skb->csum = csum_unfold((__force __sum16)cpu_to_be16(sum));
			st->csum_complete++;
		}
	}
	if ((features & NETIF_F_RXHASH) && cqe->hash_type) {
		enum pkt_hash_types type = PKT_HASH_TYPE_L3;

		switch (cqe->hash_type) {
		case KITE_RSS_HASH_TYPE_IPV4_TCP:
		case KITE_RSS_HASH_TYPE_IPV4_UDP:
		case KITE_RSS_HASH_TYPE_IPV6_TCP:
		case KITE_RSS_HASH_TYPE_IPV6_UDP:
			type = PKT_HASH_TYPE_L4;
			break;
		}
		skb_set_hash(skb, le32_to_cpu(cqe->imm_hash), type);
	}
	if (flags & KITE_CQE_FLAGS_VLAN)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       le16_to_cpu(cqe->vlan_tci));
}

static int kite_rx_poll(struct kite_channel *ch, int budget)
{
	struct kite_rxq *rxq = &ch->rxq;
	struct kite_rx_stats *st = &ch->rx_stats;
	struct net_device *netdev = ch->priv->netdev;
	struct kite_cq *cq = &rxq->cq;
	struct kite_cqe *cqe;
	struct sk_buff *skb;
	int work = 0;

	while (work < budget && (cqe = kite_cq_peek(cq))) {
		u32 slot = le16_to_cpu(cqe->wqe_index) & rxq->mask;
		u32 byte_cnt = le32_to_cpu(cqe->byte_cnt);

		cq->ci++;
		rxq->ci++;
		work++;

		u64_stats_update_begin(&st->syncp);
		if (unlikely(cqe->opcode != KITE_CQE_OPCODE_ETH_RX ||
			     cqe->status != KITE_CQE_STATUS_SUCCESS)) {
			/* The buffers stay in the slot for the next post. */
			st->errors++;
			u64_stats_update_end(&st->syncp);
			continue;
		}
		skb = kite_rx_build_skb(rxq, slot, byte_cnt);
		if (IS_ERR_OR_NULL(skb)) {
			if (skb)
				st->errors++;
			else
				st->alloc_fail++;
			u64_stats_update_end(&st->syncp);
			continue;
		}
		if (skb_shinfo(skb)->nr_frags)
			st->multi_sge++;
		kite_rx_offloads(rxq, cqe, skb, st);
		st->packets++;
		st->bytes += byte_cnt;
		u64_stats_update_end(&st->syncp);

		skb_record_rx_queue(skb, ch->idx);
		skb->protocol = eth_type_trans(skb, netdev);
		napi_gro_receive(&ch->napi, skb);
	}
	return work;
}

/* Feed net DIM one sample per completed poll; its work item applies the
 * moderation it picks to the RX CQ.
 */
static void kite_dim_update(struct kite_channel *ch)
{
	struct dim_sample sample = {};

	dim_update_sample(ch->dim_events++, ch->rx_stats.packets,
			  ch->rx_stats.bytes, &sample);
	net_dim(&ch->rx_dim, sample);
}

int kite_napi_poll(struct napi_struct *napi, int budget)
{
	struct kite_channel *ch = container_of(napi, struct kite_channel, napi);
	struct kite_dev *kdev = ch->priv->kdev;
	struct kite_txq *txq = &ch->txq;
	struct kite_rxq *rxq = &ch->rxq;
	int work = 0;
	bool starved;

	kite_tx_poll(ch, budget);
	if (budget)
		work = kite_rx_poll(ch, budget);
	/* The card learns the consumed CQEs before it sees new WQEs. */
	if (work)
		kite_cq_update_ci(&rxq->cq, rxq->db);
	starved = kite_rxq_fill(rxq) && rxq->pi == rxq->ci;

	/* With no receive buffer posted no completion will come to wake
	 * us: keep polling until allocation succeeds.
	 */
	if (work == budget || starved)
		return budget;

	if (napi_complete_done(napi, work)) {
		if (READ_ONCE(ch->priv->coal.rx_adaptive))
			kite_dim_update(ch);
		kite_cq_arm(kdev, &txq->cq);
		kite_cq_arm(kdev, &rxq->cq);
		/* A CQE written before the arm raised no event. */
		if (kite_cq_peek(&txq->cq) || kite_cq_peek(&rxq->cq))
			napi_schedule(napi);
	}
	return work;
}
