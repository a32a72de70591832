/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences between the kernels kite.ko is built for (Debian's 6.1 and
 * 6.12). Everything version dependent lives here, detected by feature
 * rather than by version number. The out-of-tree Kbuild file looks at the
 * target kernel's headers and defines KITE_NEED_* (an older API is needed)
 * or KITE_HAVE_* (an API that only some targets have).
 */
#ifndef _KITE_COMPAT_H
#define _KITE_COMPAT_H

#include <linux/ethtool.h>
#include <linux/string.h>
#include <net/devlink.h>
#ifdef KITE_HAVE_NETDEV_STAT_OPS
#include <net/netdev_queues.h>
#endif

/* 6.6 split page_pool.h into types and helpers. */
#ifdef KITE_NEED_PAGE_POOL_H
#include <net/page_pool.h>
#else
#include <net/page_pool/helpers.h>
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

/* ethtool_puts() arrived in 6.8. */
#ifdef KITE_NEED_ETHTOOL_PUTS
static inline void ethtool_puts(u8 **data, const char *str)
{
	strscpy_pad(*data, str, ETH_GSTRING_LEN);
	*data += ETH_GSTRING_LEN;
}
#endif

/* 6.8 passes RSS parameters in struct ethtool_rxfh_param. */
#ifdef KITE_HAVE_RXFH_PARAM
static inline int kite_get_rxfh(struct net_device *netdev,
				struct ethtool_rxfh_param *rxfh)
{
	rxfh->hfunc = ETH_RSS_HASH_TOP;
	return kite_rxfh_get(netdev, rxfh->rss_context, rxfh->indir,
			     rxfh->key);
}

static inline int kite_rxfh_param_check(const struct ethtool_rxfh_param *rxfh)
{
	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	if (rxfh->input_xfrm && rxfh->input_xfrm != RXH_XFRM_NO_CHANGE)
		return -EOPNOTSUPP;
	return 0;
}

static inline int kite_set_rxfh(struct net_device *netdev,
				struct ethtool_rxfh_param *rxfh,
				struct netlink_ext_ack *extack)
{
	int err = kite_rxfh_param_check(rxfh);

	if (err)
		return err;
	/* Contexts other than 0 come through the *_rxfh_context ops. */
	if (rxfh->rss_context)
		return -EOPNOTSUPP;
	return kite_rxfh_set(netdev, rxfh->indir, rxfh->key);
}
#else
static inline int kite_get_rxfh(struct net_device *netdev, u32 *indir,
				u8 *key, u8 *hfunc)
{
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	return kite_rxfh_get(netdev, 0, indir, key);
}

static inline int kite_set_rxfh(struct net_device *netdev, const u32 *indir,
				const u8 *key, const u8 hfunc)
{
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	return kite_rxfh_set(netdev, indir, key);
}
#endif

/*
 * Additional RSS contexts: since 6.11 the core allocates context IDs
 * (below rxfh_max_num_contexts), keeps their tables and calls
 * create/modify/remove_rxfh_context; before, one set_rxfh_context did all
 * three and the driver chose the ID.
 */
#if defined(KITE_HAVE_RXFH_CONTEXT_OPS)
static inline int kite_create_rxfh_context(struct net_device *netdev,
					   struct ethtool_rxfh_context *ctx,
					   const struct ethtool_rxfh_param *rxfh,
					   struct netlink_ext_ack *extack)
{
	int err = kite_rxfh_param_check(rxfh);

	if (!err)
		err = kite_rss_ctx_create(netdev, rxfh->rss_context,
					  rxfh->indir, rxfh->key, extack);
	if (err)
		return err;
	/* The core records only what it was given. */
	if (!rxfh->indir)
		kite_rxfh_get(netdev, rxfh->rss_context,
			      ethtool_rxfh_context_indir(ctx), NULL);
	if (!rxfh->key)
		kite_rxfh_get(netdev, rxfh->rss_context, NULL,
			      ethtool_rxfh_context_key(ctx));
	ctx->hfunc = ETH_RSS_HASH_TOP;
	ctx->input_xfrm = 0;
	return 0;
}

static inline int kite_modify_rxfh_context(struct net_device *netdev,
					   struct ethtool_rxfh_context *ctx,
					   const struct ethtool_rxfh_param *rxfh,
					   struct netlink_ext_ack *extack)
{
	int err = kite_rxfh_param_check(rxfh);

	if (err)
		return err;
	return kite_rss_ctx_modify(netdev, rxfh->rss_context, rxfh->indir,
				   rxfh->key, extack);
}

static inline int kite_remove_rxfh_context(struct net_device *netdev,
					   struct ethtool_rxfh_context *ctx,
					   u32 rss_context,
					   struct netlink_ext_ack *extack)
{
	return kite_rss_ctx_remove(netdev, rss_context, extack);
}

#define KITE_RSS_CTX_OPS						\
	.create_rxfh_context = kite_create_rxfh_context,		\
	.modify_rxfh_context = kite_modify_rxfh_context,		\
	.remove_rxfh_context = kite_remove_rxfh_context,		\
	.rxfh_per_ctx_key = 1,						\
	.rxfh_max_num_contexts = KITE_MAX_RSS_CTX,
#elif !defined(KITE_HAVE_RXFH_PARAM)
static inline int kite_get_rxfh_context(struct net_device *netdev, u32 *indir,
					u8 *key, u8 *hfunc, u32 rss_context)
{
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	return kite_rxfh_get(netdev, rss_context, indir, key);
}

static inline int kite_set_rxfh_context(struct net_device *netdev,
					const u32 *indir, const u8 *key,
					const u8 hfunc, u32 *rss_context,
					bool delete)
{
	int ctx, err;

	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	if (delete)
		return kite_rss_ctx_remove(netdev, *rss_context, NULL);
	if (*rss_context != ETH_RXFH_CONTEXT_ALLOC)
		return kite_rss_ctx_modify(netdev, *rss_context, indir, key,
					   NULL);
	ctx = kite_rss_ctx_alloc(netdev);
	if (ctx < 0)
		return ctx;
	err = kite_rss_ctx_create(netdev, ctx, indir, key, NULL);
	if (!err)
		*rss_context = ctx;
	return err;
}

#define KITE_RSS_CTX_OPS						\
	.get_rxfh_context = kite_get_rxfh_context,			\
	.set_rxfh_context = kite_set_rxfh_context,
#else
/* 6.8 to 6.10: contexts through set_rxfh; not offered. */
#define KITE_RSS_CTX_OPS
#endif

/* 6.8 reports per-queue counters through netdev_stat_ops (qstats). */
#ifdef KITE_HAVE_NETDEV_STAT_OPS
static inline void kite_qstats_rx(const struct kite_rx_stats *s,
				  struct netdev_queue_stats_rx *q)
{
	q->packets = s->packets;
	q->bytes = s->bytes;
	q->alloc_fail = s->alloc_fail;
	q->csum_unnecessary = s->csum_ok;
	q->csum_bad = s->csum_bad;
}

static inline void kite_qstats_tx(const struct kite_tx_stats *s,
				  struct netdev_queue_stats_tx *q)
{
	q->packets = s->packets;
	q->bytes = s->bytes;
	q->hw_gso_packets = s->tso + s->uso;
	q->stop = s->stopped;
	q->wake = s->wake;
}

static inline void kite_get_queue_stats_rx(struct net_device *netdev, int idx,
					   struct netdev_queue_stats_rx *q)
{
	struct kite_rx_stats s;

	kite_channel_stats(netdev_priv(netdev), idx, &s, NULL);
	kite_qstats_rx(&s, q);
}

static inline void kite_get_queue_stats_tx(struct net_device *netdev, int idx,
					   struct netdev_queue_stats_tx *q)
{
	struct kite_tx_stats s;

	kite_channel_stats(netdev_priv(netdev), idx, NULL, &s);
	kite_qstats_tx(&s, q);
}

static inline void kite_get_base_stats(struct net_device *netdev,
				       struct netdev_queue_stats_rx *rx,
				       struct netdev_queue_stats_tx *tx)
{
	struct kite_rx_stats r;
	struct kite_tx_stats t;

	kite_base_stats(netdev_priv(netdev), &r, &t);
	kite_qstats_rx(&r, rx);
	kite_qstats_tx(&t, tx);
}

static inline void kite_set_stat_ops(struct net_device *netdev)
{
	static const struct netdev_stat_ops kite_stat_ops = {
		.get_queue_stats_rx = kite_get_queue_stats_rx,
		.get_queue_stats_tx = kite_get_queue_stats_tx,
		.get_base_stats = kite_get_base_stats,
	};

	netdev->stat_ops = &kite_stat_ops;
}
#else
static inline void kite_set_stat_ops(struct net_device *netdev)
{
}
#endif

#endif /* _KITE_COMPAT_H */
