// SPDX-License-Identifier: GPL-2.0-only
/* Kite ethtool operations. */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

#include "kite.h"
#include "kite_compat.h"

struct kite_stat {
	char name[ETH_GSTRING_LEN];
	u32 offset;
};

#define KITE_TX_STAT(f) { #f, offsetof(struct kite_tx_stats, f) }
#define KITE_RX_STAT(f) { #f, offsetof(struct kite_rx_stats, f) }
#define KITE_PORT_STAT(f) { #f, offsetof(struct kite_port_stats, f) }

static const struct kite_stat kite_tx_stats_desc[] = {
	KITE_TX_STAT(packets),
	KITE_TX_STAT(bytes),
	KITE_TX_STAT(csum),
	KITE_TX_STAT(tso),
	KITE_TX_STAT(linearize),
	KITE_TX_STAT(stopped),
	KITE_TX_STAT(wake),
	KITE_TX_STAT(dropped),
	KITE_TX_STAT(errors),
	KITE_TX_STAT(nofcs),
};

static const struct kite_stat kite_rx_stats_desc[] = {
	KITE_RX_STAT(packets),
	KITE_RX_STAT(bytes),
	KITE_RX_STAT(csum_ok),
	KITE_RX_STAT(csum_bad),
	KITE_RX_STAT(multi_sge),
	KITE_RX_STAT(alloc_fail),
	KITE_RX_STAT(errors),
};

/* Port counters keep the names of struct kite_port_stats. */
static const struct kite_stat kite_port_stats_desc[] = {
	KITE_PORT_STAT(rx_packets),
	KITE_PORT_STAT(rx_bytes),
	KITE_PORT_STAT(tx_packets),
	KITE_PORT_STAT(tx_bytes),
	KITE_PORT_STAT(rx_no_buffer),
	KITE_PORT_STAT(rx_runt),
	KITE_PORT_STAT(rx_oversize),
	KITE_PORT_STAT(rx_bad_fcs),
	KITE_PORT_STAT(rx_bad_csum),
	KITE_PORT_STAT(rx_filtered),
	KITE_PORT_STAT(rx_multicast),
	KITE_PORT_STAT(rx_broadcast),
	KITE_PORT_STAT(tx_multicast),
	KITE_PORT_STAT(tx_broadcast),
	KITE_PORT_STAT(tx_bad_desc),
	KITE_PORT_STAT(tx_dma_error),
	KITE_PORT_STAT(rx_pause),
	KITE_PORT_STAT(tx_pause),
	{ "rx_64", offsetof(struct kite_port_stats, rx_hist[0]) },
	{ "rx_65_127", offsetof(struct kite_port_stats, rx_hist[1]) },
	{ "rx_128_255", offsetof(struct kite_port_stats, rx_hist[2]) },
	{ "rx_256_511", offsetof(struct kite_port_stats, rx_hist[3]) },
	{ "rx_512_1023", offsetof(struct kite_port_stats, rx_hist[4]) },
	{ "rx_1024_1518", offsetof(struct kite_port_stats, rx_hist[5]) },
	{ "rx_1519_max", offsetof(struct kite_port_stats, rx_hist[6]) },
	KITE_PORT_STAT(db_dropped),
	KITE_PORT_STAT(link_changes),
	KITE_PORT_STAT(rx_malformed),
	KITE_PORT_STAT(tx_lso),
	KITE_PORT_STAT(rx_csum_complete),
};

#define KITE_NUM_TX_STATS	ARRAY_SIZE(kite_tx_stats_desc)
#define KITE_NUM_RX_STATS	ARRAY_SIZE(kite_rx_stats_desc)
#define KITE_NUM_PORT_STATS	ARRAY_SIZE(kite_port_stats_desc)

static void kite_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_dev *kdev = priv->kdev;

	strscpy(info->driver, KITE_DRV_NAME, sizeof(info->driver));
	if (kdev->fw.version_str[0])
		strscpy(info->fw_version, (const char *)kdev->fw.version_str,
			sizeof(info->fw_version));
	else
		snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u.%u",
			 (u32)FIELD_GET(KITE_REG_FW_VERSION_MAJOR, kdev->fw_version),
			 (u32)FIELD_GET(KITE_REG_FW_VERSION_MINOR, kdev->fw_version),
			 (u32)FIELD_GET(KITE_REG_FW_VERSION_PATCH, kdev->fw_version));
	strscpy(info->bus_info, pci_name(kdev->pdev), sizeof(info->bus_info));
}

static int kite_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *ks)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_info info = {};
	u32 speed;
	int err;

	err = kite_query_port(priv->kdev, &info);
	if (err)
		return err;
	speed = le32_to_cpu(info.speed);

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ethtool_link_ksettings_add_link_mode(ks, supported, FIBRE);
	ethtool_link_ksettings_add_link_mode(ks, advertising, FIBRE);
	ks->base.port = PORT_DA;
	ks->base.autoneg = AUTONEG_DISABLE;
	if (info.link_up && speed) {
		ks->base.speed = speed * 1000;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static void kite_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);

	ring->rx_max_pending = KITE_MAX_RING_SIZE;
	ring->tx_max_pending = KITE_MAX_RING_SIZE;
	ring->rx_pending = priv->rx_ring_size;
	ring->tx_pending = priv->tx_ring_size;
}

static int kite_set_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 rx, tx;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending)
		return -EINVAL;
	if (ring->rx_pending < KITE_MIN_RING_SIZE ||
	    ring->tx_pending < KITE_MIN_RING_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "rings need at least 64 entries");
		return -EINVAL;
	}
	/* Rings are powers of two. */
	rx = roundup_pow_of_two(ring->rx_pending);
	tx = roundup_pow_of_two(ring->tx_pending);
	if (rx == priv->rx_ring_size && tx == priv->tx_ring_size)
		return 0;
	return kite_reconfigure(priv, priv->num_channels, tx, rx,
				netdev->mtu);
}

static void kite_get_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct kite_priv *priv = netdev_priv(netdev);

	ch->max_combined = priv->max_channels;
	ch->combined_count = priv->num_channels;
}

static int kite_set_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	struct kite_priv *priv = netdev_priv(netdev);

	if (!ch->combined_count || ch->rx_count || ch->tx_count ||
	    ch->other_count)
		return -EINVAL;
	if (ch->combined_count == priv->num_channels)
		return 0;
	return kite_reconfigure(priv, ch->combined_count, priv->tx_ring_size,
				priv->rx_ring_size, netdev->mtu);
}

static int kite_get_sset_count(struct net_device *netdev, int sset)
{
	struct kite_priv *priv = netdev_priv(netdev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return priv->num_channels * (KITE_NUM_TX_STATS + KITE_NUM_RX_STATS) +
	       KITE_NUM_PORT_STATS;
}

static void kite_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (q = 0; q < priv->num_channels; q++) {
		for (i = 0; i < KITE_NUM_TX_STATS; i++)
			ethtool_sprintf(&data, "tx%u_%s", q,
					kite_tx_stats_desc[i].name);
		for (i = 0; i < KITE_NUM_RX_STATS; i++)
			ethtool_sprintf(&data, "rx%u_%s", q,
					kite_rx_stats_desc[i].name);
	}
	for (i = 0; i < KITE_NUM_PORT_STATS; i++)
		ethtool_puts(&data, kite_port_stats_desc[i].name);
}

static void kite_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_stats *ps;
	unsigned int start;
	u32 q, i;

	for (q = 0; q < priv->num_channels; q++) {
		struct kite_channel *ch = &priv->channels[q];

		do {
			start = u64_stats_fetch_begin(&ch->tx_stats.syncp);
			for (i = 0; i < KITE_NUM_TX_STATS; i++)
				data[i] = *(u64 *)((u8 *)&ch->tx_stats +
						   kite_tx_stats_desc[i].offset);
		} while (u64_stats_fetch_retry(&ch->tx_stats.syncp, start));
		data += KITE_NUM_TX_STATS;
		do {
			start = u64_stats_fetch_begin(&ch->rx_stats.syncp);
			for (i = 0; i < KITE_NUM_RX_STATS; i++)
				data[i] = *(u64 *)((u8 *)&ch->rx_stats +
						   kite_rx_stats_desc[i].offset);
		} while (u64_stats_fetch_retry(&ch->rx_stats.syncp, start));
		data += KITE_NUM_RX_STATS;
	}

	ps = kzalloc(sizeof(*ps), GFP_KERNEL);
	if (ps && kite_query_port_stats(priv, ps))
		memset(ps, 0, sizeof(*ps));
	for (i = 0; i < KITE_NUM_PORT_STATS; i++)
		data[i] = ps ? le64_to_cpu(*(__le64 *)((u8 *)ps +
				kite_port_stats_desc[i].offset)) : 0;
	kfree(ps);
}

static const struct ethtool_ops kite_ethtool_ops = {
	.get_drvinfo = kite_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = kite_get_link_ksettings,
	.get_ringparam = kite_get_ringparam,
	.set_ringparam = kite_set_ringparam,
	.get_channels = kite_get_channels,
	.set_channels = kite_set_channels,
	.get_sset_count = kite_get_sset_count,
	.get_strings = kite_get_strings,
	.get_ethtool_stats = kite_get_ethtool_stats,
};

void kite_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &kite_ethtool_ops;
}
