// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kite Ethernet netdev: channels (one SQ, one RQ, their CQs and a NAPI
 * context per completion EQ), open/stop, RSS, receive filters, MTU and
 * feature changes.
 */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>

#include "kite.h"
#include "kite_compat.h"

static u8 kite_rq_flags(struct kite_priv *priv, netdev_features_t features)
{
	u8 flags = 0;

	if (features & NETIF_F_HW_VLAN_CTAG_RX)
		flags |= KITE_CREATE_WQ_IN_FLAGS_VLAN_STRIP;
	if (features & NETIF_F_RXFCS)
		flags |= KITE_CREATE_WQ_IN_FLAGS_RX_FCS;
	if (features & NETIF_F_RXALL)
		flags |= KITE_CREATE_WQ_IN_FLAGS_RX_ALL;
	return flags;
}

static int kite_modify_wq(struct kite_dev *kdev, u16 opcode, u32 id,
			  u8 mask, u8 state, u8 flags)
{
	struct kite_modify_wq_in in = {
		.id = cpu_to_le32(id),
		.state = state,
		.flags = flags,
		.mask = mask,
	};

	return kite_cmd_exec(kdev, opcode, &in, sizeof(in), NULL, 0);
}

static int kite_create_wq(struct kite_dev *kdev, u16 opcode, dma_addr_t base,
			  u32 log_size, u32 log_stride, u8 flags, u32 cqn,
			  u32 *id)
{
	struct kite_create_wq_in in = {
		.base = cpu_to_le64(base),
		.log_size = log_size,
		.log_stride = log_stride,
		.port = kdev->port,
		.flags = flags,
		.cqn = cpu_to_le32(cqn),
		.db_page = 0,
	};
	struct kite_obj_out out = {};
	int err;

	err = kite_cmd_exec(kdev, opcode, &in, sizeof(in), &out, sizeof(out));
	if (!err) {
		*id = le32_to_cpu(out.id);
		kite_own_set(kdev, opcode == KITE_CMD_OPCODE_CREATE_SQ ?
			     KITE_OWN_SQ : KITE_OWN_RQ, *id, true);
	}
	return err;
}

static size_t kite_wq_bytes(u32 log_size, u32 log_stride)
{
	return PAGE_ALIGN((size_t)1 << (log_size + log_stride));
}

static void kite_txq_destroy(struct kite_priv *priv, struct kite_channel *ch)
{
	struct kite_txq *txq = &ch->txq;
	struct kite_dev *kdev = priv->kdev;

	if (txq->sqn) {
		kite_destroy_obj(kdev, KITE_CMD_OPCODE_DESTROY_SQ, txq->sqn);
		kite_own_set(kdev, KITE_OWN_SQ, txq->sqn, false);
	}
	txq->sqn = 0;
	kite_cq_free(kdev, &txq->cq);
	if (txq->bufs)
		kite_txq_drain(txq);
	kvfree(txq->bufs);
	txq->bufs = NULL;
	if (txq->ring)
		dma_free_coherent(priv->dmadev,
				  kite_wq_bytes(txq->log_size, KITE_SQ_LOG_STRIDE),
				  txq->ring, txq->dma);
	txq->ring = NULL;
}

static int kite_txq_create(struct kite_priv *priv, struct kite_channel *ch)
{
	struct kite_txq *txq = &ch->txq;
	struct kite_dev *kdev = priv->kdev;
	u32 size = priv->tx_ring_size;
	int err;

	txq->ch = ch;
	txq->dmadev = priv->dmadev;
	txq->db = kdev->db;
	txq->log_size = ilog2(size);
	txq->mask = size - 1;
	txq->pi = 0;
	txq->ci = 0;
	txq->ntxq = netdev_get_tx_queue(priv->netdev, ch->idx);
	txq->bufs = kvcalloc(size, sizeof(*txq->bufs), GFP_KERNEL);
	if (!txq->bufs)
		return -ENOMEM;
	txq->ring = dma_alloc_coherent(priv->dmadev,
				       kite_wq_bytes(txq->log_size,
						     KITE_SQ_LOG_STRIDE),
				       &txq->dma, GFP_KERNEL);
	if (!txq->ring) {
		err = -ENOMEM;
		goto err;
	}
	err = kite_cq_alloc(kdev, &txq->cq, txq->log_size + KITE_CQ_SLACK_LOG,
			    ch->eq->eqn);
	if (err)
		goto err;
	err = kite_create_wq(kdev, KITE_CMD_OPCODE_CREATE_SQ, txq->dma,
			     txq->log_size, KITE_SQ_LOG_STRIDE, 0, txq->cq.cqn,
			     &txq->sqn);
	if (err)
		goto err;
	err = kite_modify_wq(kdev, KITE_CMD_OPCODE_MODIFY_SQ, txq->sqn,
			     KITE_MODIFY_WQ_IN_MASK_STATE, KITE_WQ_STATE_RDY, 0);
	if (err)
		goto err;
	netdev_tx_reset_queue(txq->ntxq);
	return 0;
err:
	kite_txq_destroy(priv, ch);
	return err;
}

static void kite_rxq_destroy(struct kite_priv *priv, struct kite_channel *ch)
{
	struct kite_rxq *rxq = &ch->rxq;
	struct kite_dev *kdev = priv->kdev;

	if (rxq->rqn) {
		kite_destroy_obj(kdev, KITE_CMD_OPCODE_DESTROY_RQ, rxq->rqn);
		kite_own_set(kdev, KITE_OWN_RQ, rxq->rqn, false);
	}
	rxq->rqn = 0;
	kite_cq_free(kdev, &rxq->cq);
	if (rxq->pages)
		kite_rxq_drain(rxq);
	kvfree(rxq->pages);
	rxq->pages = NULL;
	if (rxq->pool)
		page_pool_destroy(rxq->pool);
	rxq->pool = NULL;
	if (rxq->ring)
		dma_free_coherent(priv->dmadev,
				  kite_wq_bytes(rxq->log_size, rxq->log_stride),
				  rxq->ring, rxq->dma);
	rxq->ring = NULL;
}

static int kite_rxq_create(struct kite_priv *priv, struct kite_channel *ch)
{
	struct kite_rxq *rxq = &ch->rxq;
	struct kite_dev *kdev = priv->kdev;
	u32 size = priv->rx_ring_size;
	struct page_pool_params pp = {};
	int err;

	rxq->ch = ch;
	rxq->dmadev = priv->dmadev;
	rxq->db = kdev->db;
	rxq->log_size = ilog2(size);
	rxq->mask = size - 1;
	rxq->pi = 0;
	rxq->ci = 0;
	rxq->nsge = kite_rx_nsge(priv->netdev->mtu);
	rxq->log_stride = max_t(u32, KITE_MIN_LOG_STRIDE,
				order_base_2(rxq->nsge * sizeof(struct kite_wqe_sge)));

	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.order = 0;
	pp.pool_size = min_t(u32, size * rxq->nsge, 16384);
	pp.nid = dev_to_node(priv->dmadev);
	pp.dev = priv->dmadev;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.offset = 0;
	pp.max_len = PAGE_SIZE;
	rxq->pool = page_pool_create(&pp);
	if (IS_ERR(rxq->pool)) {
		err = PTR_ERR(rxq->pool);
		rxq->pool = NULL;
		return err;
	}
	rxq->pages = kvcalloc(size * rxq->nsge, sizeof(*rxq->pages),
			      GFP_KERNEL);
	if (!rxq->pages) {
		err = -ENOMEM;
		goto err;
	}
	rxq->ring = dma_alloc_coherent(priv->dmadev,
				       kite_wq_bytes(rxq->log_size,
						     rxq->log_stride),
				       &rxq->dma, GFP_KERNEL);
	if (!rxq->ring) {
		err = -ENOMEM;
		goto err;
	}
	err = kite_cq_alloc(kdev, &rxq->cq, rxq->log_size + KITE_CQ_SLACK_LOG,
			    ch->eq->eqn);
	if (err)
		goto err;
	err = kite_create_wq(kdev, KITE_CMD_OPCODE_CREATE_RQ, rxq->dma,
			     rxq->log_size, rxq->log_stride,
			     kite_rq_flags(priv, priv->netdev->features),
			     rxq->cq.cqn, &rxq->rqn);
	if (err)
		goto err;
	/* Post buffers first: the doorbell is only accepted once RDY. */
	kite_rxq_fill(rxq);
	if (rxq->pi == rxq->ci) {
		err = -ENOMEM;
		goto err;
	}
	err = kite_modify_wq(kdev, KITE_CMD_OPCODE_MODIFY_RQ, rxq->rqn,
			     KITE_MODIFY_WQ_IN_MASK_STATE, KITE_WQ_STATE_RDY, 0);
	if (err)
		goto err;
	writel(kite_db_val(rxq->rqn, rxq->pi), rxq->db + KITE_DB_RQ);
	return 0;
err:
	kite_rxq_destroy(priv, ch);
	return err;
}

/* SET_RSS of context @ctx on the port (0 is the default steering). */
static int kite_rss_write(struct kite_priv *priv, u32 ctx, const u32 *indir,
			  const u8 *key, u32 *id)
{
	struct kite_dev *kdev = priv->kdev;
	struct kite_set_rss_in in = {};
	struct kite_obj_out out = {};
	__le16 *table;
	u32 i, ch;
	int err;

	mutex_lock(&kdev->cmd.mbox_lock);
	table = kdev->cmd.mbox;
	for (i = 0; i < KITE_RSS_TABLE_SIZE; i++) {
		ch = indir[i];
		if (ch >= priv->num_channels)
			ch = 0;
		table[i] = cpu_to_le16(priv->channels[ch].rxq.rqn);
	}
	in.ctx = cpu_to_le16(ctx);
	in.hash_fields = priv->rss_fields;
	in.port = priv->port;
	in.table_size = cpu_to_le16(KITE_RSS_TABLE_SIZE);
	in.table_addr = cpu_to_le64(kdev->cmd.mbox_dma);
	memcpy(in.key, key, sizeof(in.key));
	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_SET_RSS, &in, sizeof(in),
			    &out, sizeof(out));
	mutex_unlock(&kdev->cmd.mbox_lock);
	/* The card names the context it programmed. */
	if (!err)
		*id = le32_to_cpu(out.id);
	return err;
}

int kite_rss_set(struct kite_priv *priv)
{
	int err;

	err = kite_rss_write(priv, 0, priv->rss_indir, priv->rss_key,
			     &priv->rss_id);
	if (!err)
		priv->rss_valid = true;
	return err;
}

int kite_rss_ctx_program(struct kite_priv *priv, u32 ctx)
{
	struct kite_rss_ctx *c = &priv->rss_ctx[ctx];
	u32 id;
	int err;

	err = kite_rss_write(priv, ctx, c->indir, c->key, &id);
	if (!err)
		set_bit(ctx, priv->rss_ctx_hw);
	return err;
}

void kite_rss_ctx_unprogram(struct kite_priv *priv, u32 ctx)
{
	if (!test_and_clear_bit(ctx, priv->rss_ctx_hw))
		return;
	kite_destroy_obj(priv->kdev, KITE_CMD_OPCODE_DESTROY_RSS,
			 (u32)priv->port << 16 | ctx);
}

/* Program (or, on failure, take back) every additional context. */
static int kite_rss_ctxs_install(struct kite_priv *priv)
{
	u32 ctx;
	int err;

	for_each_set_bit(ctx, priv->rss_ctx_used, KITE_MAX_RSS_CTX) {
		err = kite_rss_ctx_program(priv, ctx);
		if (err) {
			netdev_err(priv->netdev, "cannot program RSS context %u: %d\n",
				   ctx, err);
			goto undo;
		}
	}
	return 0;
undo:
	for_each_set_bit(ctx, priv->rss_ctx_hw, KITE_MAX_RSS_CTX)
		kite_rss_ctx_unprogram(priv, ctx);
	return err;
}

static void kite_rss_ctxs_remove(struct kite_priv *priv)
{
	u32 ctx;

	for_each_set_bit(ctx, priv->rss_ctx_hw, KITE_MAX_RSS_CTX)
		kite_rss_ctx_unprogram(priv, ctx);
}

void kite_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct kite_channel *ch = container_of(dim, struct kite_channel,
					       rx_dim);
	struct dim_cq_moder m;

	m = net_dim_get_rx_moderation(dim->mode, dim->profile_ix);
	kite_cq_moderate(ch->priv->kdev, &ch->rxq.cq,
			 min_t(u16, m.usec, KITE_MAX_MOD_USECS), m.pkts);
	dim->state = DIM_START_MEASURE;
}

/* Program every CQ with the moderation of ethtool -C; with adaptive RX
 * the RX CQs start from it and DIM moves them.
 */
int kite_apply_coalesce(struct kite_priv *priv)
{
	struct kite_coal *c = &priv->coal;
	u32 i;
	int err;

	if (!priv->hw_up)
		return 0;
	for (i = 0; i < priv->num_channels; i++) {
		struct kite_channel *ch = &priv->channels[i];

		err = kite_cq_moderate(priv->kdev, &ch->rxq.cq, c->rx_usecs,
				       c->rx_frames);
		if (!err)
			err = kite_cq_moderate(priv->kdev, &ch->txq.cq,
					       c->tx_usecs, c->tx_frames);
		if (err)
			return err;
	}
	return 0;
}

static void kite_close_channels(struct kite_priv *priv)
{
	struct kite_channel *ch;
	u32 i;

	if (!priv->hw_up)
		return;
	priv->hw_up = false;
	for (i = 0; i < priv->num_channels; i++) {
		ch = &priv->channels[i];
		WRITE_ONCE(ch->active, false);
		napi_disable(&ch->napi);
		cancel_work_sync(&ch->rx_dim.work);
	}
	/* A poll that ran until now may have woken a queue. */
	netif_tx_disable(priv->netdev);
	/* Release the RQs from the rules and RSS contexts before destroying
	 * them; a function reset restores the default anyway.
	 */
	kite_flows_remove(priv);
	kite_rss_ctxs_remove(priv);
	if (priv->rss_valid)
		kite_destroy_obj(priv->kdev, KITE_CMD_OPCODE_DESTROY_RSS,
				 priv->rss_id);
	priv->rss_valid = false;
	for (i = 0; i < priv->num_channels; i++) {
		ch = &priv->channels[i];
		kite_txq_destroy(priv, ch);
		kite_rxq_destroy(priv, ch);
	}
}

static int kite_open_channels(struct kite_priv *priv)
{
	struct kite_dev *kdev = priv->kdev;
	struct kite_channel *ch;
	u32 i, n;
	int err;

	for (n = 0; n < priv->num_channels; n++) {
		ch = &priv->channels[n];
		err = kite_txq_create(priv, ch);
		if (err)
			goto err;
		err = kite_rxq_create(priv, ch);
		if (err) {
			kite_txq_destroy(priv, ch);
			goto err;
		}
	}
	err = netif_set_real_num_tx_queues(priv->netdev, priv->num_channels);
	if (!err)
		err = netif_set_real_num_rx_queues(priv->netdev,
						   priv->num_channels);
	if (err)
		goto err;
	err = kite_rss_set(priv);
	if (err)
		goto err;
	/* Rules may steer to a context: contexts first. */
	err = kite_rss_ctxs_install(priv);
	if (!err) {
		err = kite_flows_install(priv);
		if (err)
			kite_rss_ctxs_remove(priv);
	}
	if (err) {
		kite_destroy_obj(kdev, KITE_CMD_OPCODE_DESTROY_RSS,
				 priv->rss_id);
		priv->rss_valid = false;
		goto err;
	}

	for (i = 0; i < priv->num_channels; i++) {
		ch = &priv->channels[i];
		napi_enable(&ch->napi);
		WRITE_ONCE(ch->active, true);
		kite_cq_arm(kdev, &ch->txq.cq);
		kite_cq_arm(kdev, &ch->rxq.cq);
	}
	priv->hw_up = true;
	/* Moderation is a preference: traffic flows without it. */
	if (kite_apply_coalesce(priv))
		netdev_warn(priv->netdev, "cannot apply interrupt moderation\n");
	return 0;

err:
	while (n--) {
		ch = &priv->channels[n];
		kite_txq_destroy(priv, ch);
		kite_rxq_destroy(priv, ch);
	}
	return err;
}

static void kite_update_carrier(struct kite_priv *priv)
{
	struct kite_dev *kdev = priv->kdev;
	struct kite_port_info info = {};
	unsigned long flags;
	u32 seen;

	spin_lock_irqsave(&kdev->link_lock, flags);
	seen = kdev->link_events;
	spin_unlock_irqrestore(&kdev->link_lock, flags);
	if (kite_query_port(kdev, &info))
		return;
	/*
	 * A PORT_CHANGE event handled while the query was in flight is newer
	 * than its answer: applying the answer would undo the event.
	 */
	spin_lock_irqsave(&kdev->link_lock, flags);
	if (kdev->link_events == seen) {
		if (info.link_up)
			netif_carrier_on(priv->netdev);
		else
			netif_carrier_off(priv->netdev);
	}
	spin_unlock_irqrestore(&kdev->link_lock, flags);
}

static int kite_open(struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);
	int err;

	err = kite_open_channels(priv);
	if (err) {
		netdev_err(netdev, "cannot set up %u channels: %d\n",
			   priv->num_channels, err);
		return err;
	}
	err = kite_set_port(priv->kdev,
			    KITE_PORT_INFO_MASK_ADMIN | KITE_PORT_INFO_MASK_MTU,
			    true, netdev->mtu);
	if (err) {
		kite_close_channels(priv);
		return err;
	}
	netif_tx_start_all_queues(netdev);
	kite_update_carrier(priv);
	return 0;
}

static int kite_stop(struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);

	netif_carrier_off(netdev);
	netif_tx_disable(netdev);
	kite_set_port(priv->kdev, KITE_PORT_INFO_MASK_ADMIN, false, 0);
	kite_close_channels(priv);
	return 0;
}

int kite_reconfigure(struct kite_priv *priv, u32 channels, u32 tx_ring,
		     u32 rx_ring, int mtu)
{
	struct net_device *netdev = priv->netdev;
	u32 old_ch = priv->num_channels, old_tx = priv->tx_ring_size;
	u32 old_rx = priv->rx_ring_size;
	int old_mtu = netdev->mtu;
	bool running = netif_running(netdev) && priv->hw_up;
	int err;

	if (running) {
		netif_tx_disable(netdev);
		kite_close_channels(priv);
	}
	priv->num_channels = channels;
	priv->tx_ring_size = tx_ring;
	priv->rx_ring_size = rx_ring;
	WRITE_ONCE(netdev->mtu, mtu);
	/* A table the user set stays; ethtool keeps it within the channels. */
	if (channels != old_ch && !netif_is_rxfh_configured(netdev)) {
		u32 i;

		for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
			priv->rss_indir[i] = ethtool_rxfh_indir_default(i,
									channels);
	}
	if (!running) {
		err = netif_set_real_num_tx_queues(netdev, channels);
		if (!err)
			err = netif_set_real_num_rx_queues(netdev, channels);
		return err;
	}

	err = kite_open_channels(priv);
	if (err) {
		netdev_err(netdev, "reconfiguration failed (%d), restoring %u channels\n",
			   err, old_ch);
		priv->num_channels = old_ch;
		priv->tx_ring_size = old_tx;
		priv->rx_ring_size = old_rx;
		WRITE_ONCE(netdev->mtu, old_mtu);
		if (channels != old_ch && !netif_is_rxfh_configured(netdev)) {
			u32 i;

			for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
				priv->rss_indir[i] =
					ethtool_rxfh_indir_default(i, old_ch);
		}
		if (kite_open_channels(priv)) {
			netdev_err(netdev, "cannot restore the channels; bring the interface down and up\n");
			return err;
		}
	}
	netif_tx_wake_all_queues(netdev);
	return err;
}

static int kite_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct kite_priv *priv = netdev_priv(netdev);
	int err = 0;

	/* Receive buffers are sized for the MTU; repost them when the
	 * number of pages per frame changes.
	 */
	if (netif_running(netdev) &&
	    kite_rx_nsge(new_mtu) != kite_rx_nsge(netdev->mtu))
		err = kite_reconfigure(priv, priv->num_channels,
				       priv->tx_ring_size, priv->rx_ring_size,
				       new_mtu);
	else
		WRITE_ONCE(netdev->mtu, new_mtu);
	if (err)
		return err;
	if (netif_running(netdev))
		err = kite_set_port(priv->kdev, KITE_PORT_INFO_MASK_MTU, true,
				    new_mtu);
	return err;
}

static int kite_set_features(struct net_device *netdev,
			     netdev_features_t features)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u8 old = kite_rq_flags(priv, netdev->features);
	u8 new = kite_rq_flags(priv, features);
	u32 i;
	int err;

	if ((netdev->features & ~features) & NETIF_F_NTUPLE) {
		/* Turning ntuple off forgets the rules. */
		if (priv->hw_up)
			kite_flows_remove(priv);
		bitmap_zero(priv->flows_used, KITE_MAX_FLOW_RULES);
	}
	if ((features ^ netdev->features) & NETIF_F_HW_VLAN_CTAG_FILTER) {
		WRITE_ONCE(priv->vlan_filter,
			   !!(features & NETIF_F_HW_VLAN_CTAG_FILTER));
		queue_work(system_wq, &priv->rx_mode_work);
	}
	if (old == new || !priv->hw_up)
		return 0;
	for (i = 0; i < priv->num_channels; i++) {
		err = kite_modify_wq(priv->kdev, KITE_CMD_OPCODE_MODIFY_RQ,
				     priv->channels[i].rxq.rqn,
				     KITE_MODIFY_WQ_IN_MASK_FLAGS, 0, new);
		if (err)
			return err;
	}
	return 0;
}

static netdev_features_t kite_features_check(struct sk_buff *skb,
					     struct net_device *netdev,
					     netdev_features_t features)
{
	/* The card replicates at most MAX_TSO_HDR header bytes, and only
	 * from the first gather entry; let the stack segment anything else.
	 */
	if (skb_is_gso(skb)) {
		unsigned int hlen = kite_gso_hlen(skb);

		if (hlen > KITE_MAX_TSO_HDR || hlen > skb_headlen(skb))
			features &= ~NETIF_F_GSO_MASK;
	}
	return features;
}

/* A consistent copy of channel @idx's counters (either may be NULL).
 * Channels keep their counters while inactive, so the totals of
 * ndo_get_stats64 are the sum of every channel's.
 */
void kite_channel_stats(struct kite_priv *priv, u32 idx,
			struct kite_rx_stats *rx, struct kite_tx_stats *tx)
{
	struct kite_channel *ch = &priv->channels[idx];
	unsigned int start;

	if (rx)
		do {
			start = u64_stats_fetch_begin(&ch->rx_stats.syncp);
			*rx = ch->rx_stats;
		} while (u64_stats_fetch_retry(&ch->rx_stats.syncp, start));
	if (tx)
		do {
			start = u64_stats_fetch_begin(&ch->tx_stats.syncp);
			*tx = ch->tx_stats;
		} while (u64_stats_fetch_retry(&ch->tx_stats.syncp, start));
}

/* Counters of the channels beyond the real queues: what per-queue
 * statistics no longer show, so that base + queues = the device totals.
 */
void kite_base_stats(struct kite_priv *priv, struct kite_rx_stats *rx,
		     struct kite_tx_stats *tx)
{
	struct net_device *netdev = priv->netdev;
	struct kite_rx_stats r;
	struct kite_tx_stats t;
	u32 i;

	memset(rx, 0, sizeof(*rx));
	memset(tx, 0, sizeof(*tx));
	for (i = 0; i < priv->max_channels; i++) {
		kite_channel_stats(priv, i, &r, &t);
		if (i >= netdev->real_num_rx_queues) {
			rx->packets += r.packets;
			rx->bytes += r.bytes;
			rx->alloc_fail += r.alloc_fail;
			rx->csum_ok += r.csum_ok;
			rx->csum_bad += r.csum_bad;
			rx->csum_complete += r.csum_complete;
		}
		if (i >= netdev->real_num_tx_queues) {
			tx->packets += t.packets;
			tx->bytes += t.bytes;
			tx->stopped += t.stopped;
			tx->wake += t.wake;
			tx->csum += t.csum;
			tx->tso += t.tso;
			tx->uso += t.uso;
		}
	}
}

static void kite_get_stats64(struct net_device *netdev,
			     struct rtnl_link_stats64 *stats)
{
	struct kite_priv *priv = netdev_priv(netdev);
	void __iomem *ps = priv->kdev->regs + KITE_REG_STATS_BASE;
	unsigned int start;
	u32 i;

	for (i = 0; i < priv->max_channels; i++) {
		struct kite_channel *ch = &priv->channels[i];
		u64 pk, by, dr, er;

		do {
			start = u64_stats_fetch_begin(&ch->tx_stats.syncp);
			pk = ch->tx_stats.packets;
			by = ch->tx_stats.bytes;
			dr = ch->tx_stats.dropped;
			er = ch->tx_stats.errors;
		} while (u64_stats_fetch_retry(&ch->tx_stats.syncp, start));
		stats->tx_packets += pk;
		stats->tx_bytes += by;
		stats->tx_dropped += dr;
		stats->tx_errors += er;

		do {
			start = u64_stats_fetch_begin(&ch->rx_stats.syncp);
			pk = ch->rx_stats.packets;
			by = ch->rx_stats.bytes;
			dr = ch->rx_stats.alloc_fail;
			er = ch->rx_stats.errors;
		} while (u64_stats_fetch_retry(&ch->rx_stats.syncp, start));
		stats->rx_packets += pk;
		stats->rx_bytes += by;
		stats->rx_dropped += dr;
		stats->rx_errors += er;
	}

	/* MAC drops are only known to the card: its port counters are
	 * registers, readable from any context.
	 */
	stats->rx_crc_errors =
		lo_hi_readq(ps + offsetof(struct kite_port_stats, rx_bad_fcs));
	stats->rx_length_errors =
		lo_hi_readq(ps + offsetof(struct kite_port_stats, rx_runt)) +
		lo_hi_readq(ps + offsetof(struct kite_port_stats, rx_oversize));
	stats->rx_missed_errors =
		lo_hi_readq(ps + offsetof(struct kite_port_stats, rx_no_buffer));
	stats->multicast =
		lo_hi_readq(ps + offsetof(struct kite_port_stats, rx_multicast));
	stats->rx_errors += stats->rx_crc_errors + stats->rx_length_errors;
}

static int kite_set_mac_address(struct net_device *netdev, void *p)
{
	struct kite_priv *priv = netdev_priv(netdev);
	int err;

	err = eth_mac_addr(netdev, p);
	if (err)
		return err;
	queue_work(system_wq, &priv->rx_mode_work);
	return 0;
}

static void kite_set_rx_mode(struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);

	/* Called in atomic context; filter commands sleep. */
	queue_work(system_wq, &priv->rx_mode_work);
}

static bool kite_mac_in(u8 (*list)[ETH_ALEN], u32 n, const u8 *mac)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (ether_addr_equal(list[i], mac))
			return true;
	return false;
}

static int kite_mac_filter(struct kite_priv *priv, const u8 *mac, bool add,
			   u32 *syndrome)
{
	struct kite_mac_filter_in in = {
		.op = add,
		.port = priv->port,
	};

	ether_addr_copy(in.mac, mac);
	return kite_cmd_exec_flags(priv->kdev, KITE_CMD_OPCODE_SET_MAC_FILTER,
				   &in, sizeof(in), NULL, 0, syndrome,
				   KITE_CMD_QUIET);
}

static void kite_rx_mode_work(struct work_struct *work)
{
	struct kite_priv *priv = container_of(work, struct kite_priv,
					      rx_mode_work);
	struct net_device *netdev = priv->netdev;
	struct kite_rx_mode_in mode = { .port = priv->port };
	u8 (*want)[ETH_ALEN];
	struct netdev_hw_addr *ha;
	u32 i, n = 0, kept = 0, syn;
	u8 flags = KITE_RX_MODE_IN_FLAGS_BROADCAST;
	int err;

	want = kcalloc(KITE_MAX_MAC_FILTERS, ETH_ALEN, GFP_KERNEL);
	if (!want)
		return;

	netif_addr_lock_bh(netdev);
	if (netdev->flags & IFF_PROMISC)
		flags |= KITE_RX_MODE_IN_FLAGS_PROMISC;
	if (netdev->flags & IFF_ALLMULTI)
		flags |= KITE_RX_MODE_IN_FLAGS_ALLMULTI;
	ether_addr_copy(want[n++], netdev->dev_addr);
	netdev_for_each_uc_addr(ha, netdev) {
		if (n == KITE_MAX_MAC_FILTERS) {
			flags |= KITE_RX_MODE_IN_FLAGS_PROMISC;
			break;
		}
		if (!kite_mac_in(want, n, ha->addr))
			ether_addr_copy(want[n++], ha->addr);
	}
	if (netdev_mc_count(netdev) > KITE_MAX_MAC_FILTERS - n) {
		flags |= KITE_RX_MODE_IN_FLAGS_ALLMULTI;
	} else {
		netdev_for_each_mc_addr(ha, netdev)
			if (!kite_mac_in(want, n, ha->addr))
				ether_addr_copy(want[n++], ha->addr);
	}
	netif_addr_unlock_bh(netdev);
	if (READ_ONCE(priv->vlan_filter))
		flags |= KITE_RX_MODE_IN_FLAGS_VLAN_FILTER;

	mutex_lock(&priv->rx_mode_lock);
	/* Remove what is no longer wanted, then add what is new. */
	for (i = 0; i < priv->num_macs; i++) {
		if (kite_mac_in(want, n, priv->macs[i])) {
			ether_addr_copy(priv->macs[kept++], priv->macs[i]);
			continue;
		}
		kite_mac_filter(priv, priv->macs[i], false, &syn);
	}
	priv->num_macs = kept;
	for (i = 0; i < n; i++) {
		if (kite_mac_in(priv->macs, priv->num_macs, want[i]))
			continue;
		err = kite_mac_filter(priv, want[i], true, &syn);
		if (!err) {
			ether_addr_copy(priv->macs[priv->num_macs++], want[i]);
			continue;
		}
		/* Table full: fall back to a wider receive mode. */
		if (is_multicast_ether_addr(want[i]))
			flags |= KITE_RX_MODE_IN_FLAGS_ALLMULTI;
		else
			flags |= KITE_RX_MODE_IN_FLAGS_PROMISC;
		if (syn != KITE_SYNDROME_FILTER_FULL)
			netdev_warn(netdev, "cannot add MAC filter %pM: %d (%s)\n",
				    want[i], err, kite_syndrome_str(syn));
	}
	if (!priv->rx_mode_valid || flags != priv->rx_mode_flags) {
		mode.flags = flags;
		err = kite_cmd_exec(priv->kdev, KITE_CMD_OPCODE_SET_RX_MODE,
				    &mode, sizeof(mode), NULL, 0);
		priv->rx_mode_valid = !err;
		priv->rx_mode_flags = flags;
	}
	mutex_unlock(&priv->rx_mode_lock);
	kfree(want);
}

static int kite_vlan_filter(struct kite_priv *priv, u16 vid, bool add)
{
	struct kite_vlan_filter_in in = {
		.vid = cpu_to_le16(vid),
		.op = add,
		.port = priv->port,
	};
	u32 syn;
	int err;

	err = kite_cmd_exec_flags(priv->kdev, KITE_CMD_OPCODE_SET_VLAN_FILTER,
				  &in, sizeof(in), NULL, 0, &syn,
				  KITE_CMD_QUIET);
	if (err && !(syn == KITE_SYNDROME_FILTER_NOT_FOUND && !add))
		netdev_warn(priv->netdev, "cannot %s VLAN filter %u: %d (%s)\n",
			    add ? "add" : "remove", vid, err,
			    kite_syndrome_str(syn));
	return err;
}

static int kite_vlan_rx_add_vid(struct net_device *netdev, __be16 proto,
				u16 vid)
{
	struct kite_priv *priv = netdev_priv(netdev);
	int err;

	/* Priority-tagged frames (VID 0) always pass the filter. */
	if (!vid)
		return 0;
	err = kite_vlan_filter(priv, vid, true);
	if (!err)
		set_bit(vid, priv->active_vlans);
	return err;
}

static int kite_vlan_rx_kill_vid(struct net_device *netdev, __be16 proto,
				 u16 vid)
{
	struct kite_priv *priv = netdev_priv(netdev);

	if (!vid || !test_and_clear_bit(vid, priv->active_vlans))
		return 0;
	kite_vlan_filter(priv, vid, false);
	return 0;
}

static void kite_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_txq *txq = &priv->channels[txqueue].txq;

	netdev_err(netdev, "TX queue %u (SQ %u) stalled: pi %u ci %u, CQ %u ci %u\n",
		   txqueue, txq->sqn, txq->pi, txq->ci, txq->cq.cqn,
		   txq->cq.ci);
}

static const struct net_device_ops kite_netdev_ops = {
	.ndo_open = kite_open,
	.ndo_stop = kite_stop,
	.ndo_start_xmit = kite_start_xmit,
	.ndo_features_check = kite_features_check,
	.ndo_get_stats64 = kite_get_stats64,
	.ndo_set_rx_mode = kite_set_rx_mode,
	.ndo_set_mac_address = kite_set_mac_address,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_change_mtu = kite_change_mtu,
	.ndo_set_features = kite_set_features,
	.ndo_tx_timeout = kite_tx_timeout,
	.ndo_vlan_rx_add_vid = kite_vlan_rx_add_vid,
	.ndo_vlan_rx_kill_vid = kite_vlan_rx_kill_vid,
};

/* Called from the async EQ interrupt. */
void kite_netdev_port_event(struct kite_dev *kdev, u8 port, bool up)
{
	struct net_device *netdev = READ_ONCE(kdev->netdev);

	if (!netdev || port != kdev->port)
		return;
	/* Called from the async EQ's hard interrupt: interrupts are off. */
	spin_lock(&kdev->link_lock);
	kdev->link_events++;
	if (up && netif_running(netdev)) {
		if (!netif_carrier_ok(netdev))
			netdev_info(netdev, "link up\n");
		netif_carrier_on(netdev);
	} else {
		if (netif_carrier_ok(netdev))
			netdev_info(netdev, "link down\n");
		netif_carrier_off(netdev);
	}
	spin_unlock(&kdev->link_lock);
}

/* Called from the async EQ interrupt: a queue or CQ of ours failed. */
void kite_netdev_queue_error(struct kite_dev *kdev)
{
	struct net_device *netdev = READ_ONCE(kdev->netdev);
	struct kite_priv *priv;

	if (!netdev)
		return;
	priv = netdev_priv(netdev);
	schedule_work(&priv->recover_work);
}

/* A queue in the error state drops everything: rebuild the channels. */
static void kite_recover_work(struct work_struct *work)
{
	struct kite_priv *priv = container_of(work, struct kite_priv,
					      recover_work);
	struct net_device *netdev = priv->netdev;

	rtnl_lock();
	if (netif_running(netdev) && priv->hw_up) {
		netdev_warn(netdev, "queue error: rebuilding %u channels\n",
			    priv->num_channels);
		kite_reconfigure(priv, priv->num_channels, priv->tx_ring_size,
				 priv->rx_ring_size, netdev->mtu);
	}
	rtnl_unlock();
}

int kite_query_port_stats(struct kite_priv *priv, struct kite_port_stats *st)
{
	struct kite_dev *kdev = priv->kdev;
	struct kite_query_stats_in in = {
		.addr = cpu_to_le64(kdev->cmd.mbox_dma),
		.len = cpu_to_le32(sizeof(*st)),
		.scope = KITE_STATS_SCOPE_PORT,
		.id = cpu_to_le32(priv->port),
	};
	int err;

	mutex_lock(&kdev->cmd.mbox_lock);
	memset(kdev->cmd.mbox, 0, sizeof(*st));
	err = kite_cmd_exec(kdev, KITE_CMD_OPCODE_QUERY_STATS, &in, sizeof(in),
			    NULL, 0);
	if (!err)
		memcpy(st, kdev->cmd.mbox, sizeof(*st));
	mutex_unlock(&kdev->cmd.mbox_lock);
	return err;
}

int kite_netdev_init(struct kite_dev *kdev)
{
	struct device *dev = kite_dev_dev(kdev);
	struct kite_port_info info = {};
	struct net_device *netdev;
	struct kite_priv *priv;
	netdev_features_t f;
	u32 i, max_ch;
	int err;

	max_ch = min_t(u32, kdev->num_comp_eqs, KITE_MAX_CHANNELS);
	if (!max_ch)
		return -ENOSPC;

	err = kite_query_port(kdev, &info);
	if (err)
		return err;

	netdev = alloc_etherdev_mqs(sizeof(*priv), max_ch, max_ch);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, dev);
	priv = netdev_priv(netdev);
	priv->netdev = netdev;
	priv->kdev = kdev;
	priv->dmadev = dev;
	priv->port = kdev->port;
	priv->max_channels = max_ch;
	priv->num_channels = min_t(u32, max_ch, KITE_DEF_CHANNELS);
	priv->tx_ring_size = KITE_DEF_RING_SIZE;
	priv->rx_ring_size = KITE_DEF_RING_SIZE;
	mutex_init(&priv->rx_mode_lock);
	INIT_WORK(&priv->rx_mode_work, kite_rx_mode_work);
	INIT_WORK(&priv->recover_work, kite_recover_work);
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	priv->rss_fields = KITE_RSS_FIELD_IPV4 | KITE_RSS_FIELD_IPV4_TCP |
			   KITE_RSS_FIELD_IPV4_UDP | KITE_RSS_FIELD_IPV6 |
			   KITE_RSS_FIELD_IPV6_TCP | KITE_RSS_FIELD_IPV6_UDP;
	priv->coal.rx_usecs = KITE_DEF_RX_USECS;
	priv->coal.rx_frames = KITE_DEF_RX_FRAMES;
	priv->coal.tx_usecs = KITE_DEF_TX_USECS;
	priv->coal.tx_frames = KITE_DEF_TX_FRAMES;
	for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
		priv->rss_indir[i] = ethtool_rxfh_indir_default(i,
								priv->num_channels);

	priv->channels = kcalloc(max_ch, sizeof(*priv->channels), GFP_KERNEL);
	if (!priv->channels) {
		err = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < max_ch; i++) {
		struct kite_channel *ch = &priv->channels[i];

		ch->priv = priv;
		ch->idx = i;
		ch->eq = &kdev->comp_eqs[i];
		u64_stats_init(&ch->tx_stats.syncp);
		u64_stats_init(&ch->rx_stats.syncp);
		INIT_WORK(&ch->rx_dim.work, kite_dim_work);
		ch->rx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
		netif_napi_add(netdev, &ch->napi, kite_napi_poll);
		kdev->comp_eqs[i].ch = ch;
	}

	netdev->netdev_ops = &kite_netdev_ops;
	kite_set_ethtool_ops(netdev);
	kite_set_stat_ops(netdev);
	netdev->watchdog_timeo = 5 * HZ;
	netdev->min_mtu = KITE_MIN_MTU;
	netdev->max_mtu = KITE_MAX_MTU;
	if (kdev->caps.max_mtu)
		netdev->max_mtu = min_t(u32, KITE_MAX_MTU,
					le16_to_cpu(kdev->caps.max_mtu));

	f = NETIF_F_SG | NETIF_F_HIGHDMA;
	if (kdev->caps_reg & KITE_REG_CAPS_CSUM)
		f |= NETIF_F_HW_CSUM | NETIF_F_RXCSUM;
	if (kdev->caps_reg & KITE_REG_CAPS_TSO)
		f |= NETIF_F_TSO | NETIF_F_TSO6;
	if (kdev->caps_reg & KITE_REG_CAPS_USO)
		f |= NETIF_F_GSO_UDP_L4;
	if (kdev->caps_reg & KITE_REG_CAPS_RSS)
		f |= NETIF_F_RXHASH;
	netdev->vlan_features = f;
	if (kdev->caps_reg & KITE_REG_CAPS_VLAN) {
		f |= NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX |
		     NETIF_F_HW_VLAN_CTAG_FILTER;
		priv->vlan_filter = true;
	}
	if (kdev->caps_reg & KITE_REG_CAPS_RSS)
		f |= NETIF_F_NTUPLE;
	netdev->features = f;
	netdev->hw_features = f | NETIF_F_RXFCS | NETIF_F_RXALL;
	netdev->priv_flags |= IFF_UNICAST_FLT | IFF_SUPP_NOFCS;
	netif_set_tso_max_size(netdev, KITE_MAX_TSO_SIZE);

	if (is_valid_ether_addr(info.mac)) {
		eth_hw_addr_set(netdev, info.mac);
	} else {
		dev_warn(dev, "port %u has no valid MAC (%pM), using a random one\n",
			 kdev->port, info.mac);
		eth_hw_addr_random(netdev);
	}

	netif_set_real_num_tx_queues(netdev, priv->num_channels);
	netif_set_real_num_rx_queues(netdev, priv->num_channels);
	netif_carrier_off(netdev);
	kdev->netdev = netdev;
	err = register_netdev(netdev);
	if (err) {
		dev_err(dev, "cannot register the netdev: %d\n", err);
		kdev->netdev = NULL;
		goto err_napi;
	}
	return 0;

err_napi:
	for (i = 0; i < max_ch; i++) {
		netif_napi_del(&priv->channels[i].napi);
		kdev->comp_eqs[i].ch = NULL;
	}
	kfree(priv->channels);
err_free:
	free_netdev(netdev);
	return err;
}

void kite_netdev_cleanup(struct kite_dev *kdev)
{
	struct net_device *netdev = kdev->netdev;
	struct kite_priv *priv;
	u32 i;

	if (!netdev)
		return;
	priv = netdev_priv(netdev);
	/* Keep the EQ interrupts and the recovery away from what we free. */
	WRITE_ONCE(kdev->netdev, NULL);
	synchronize_irq(kdev->async_eq.irq);
	cancel_work_sync(&priv->recover_work);
	unregister_netdev(netdev);
	cancel_work_sync(&priv->rx_mode_work);
	for (i = 0; i < priv->max_channels; i++) {
		WRITE_ONCE(kdev->comp_eqs[i].ch, NULL);
		synchronize_irq(kdev->comp_eqs[i].irq);
		netif_napi_del(&priv->channels[i].napi);
	}
	kfree(priv->channels);
	free_netdev(netdev);
}
