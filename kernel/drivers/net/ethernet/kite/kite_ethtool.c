// SPDX-License-Identifier: GPL-2.0-only
/* Kite ethtool operations. */

#include <linux/ethtool.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>

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
	KITE_TX_STAT(uso),
	KITE_TX_STAT(bad_gso),
};

static const struct kite_stat kite_rx_stats_desc[] = {
	KITE_RX_STAT(packets),
	KITE_RX_STAT(bytes),
	KITE_RX_STAT(csum_ok),
	KITE_RX_STAT(csum_bad),
	KITE_RX_STAT(csum_complete),
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
	KITE_PORT_STAT(rx_flow_drop),
};

#define KITE_NUM_TX_STATS	ARRAY_SIZE(kite_tx_stats_desc)
#define KITE_NUM_RX_STATS	ARRAY_SIZE(kite_rx_stats_desc)
#define KITE_NUM_PORT_STATS	ARRAY_SIZE(kite_port_stats_desc)

enum {
	KITE_TEST_REGS,
	KITE_TEST_FW,
	KITE_TEST_LINK,
	KITE_NUM_TESTS,
};

static const char kite_test_names[KITE_NUM_TESTS][ETH_GSTRING_LEN] = {
	[KITE_TEST_REGS] = "Register test (offline)",
	[KITE_TEST_FW] = "Firmware test (offline)",
	[KITE_TEST_LINK] = "Link test (on/offline)",
};

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
	/* One fixed-speed 100GBASE-CR4 port; FEC is chosen with ethtool
	 * --set-fec, there is no autonegotiation.
	 */
	ethtool_link_ksettings_add_link_mode(ks, supported, FIBRE);
	ethtool_link_ksettings_add_link_mode(ks, supported, 100000baseCR4_Full);
	ethtool_link_ksettings_add_link_mode(ks, supported, Pause);
	ethtool_link_ksettings_add_link_mode(ks, supported, Asym_Pause);
	if (info.supported_fec & BIT(KITE_FEC_MODE_OFF))
		ethtool_link_ksettings_add_link_mode(ks, supported, FEC_NONE);
	if (info.supported_fec & BIT(KITE_FEC_MODE_RS))
		ethtool_link_ksettings_add_link_mode(ks, supported, FEC_RS);
	if (info.supported_fec & BIT(KITE_FEC_MODE_BASER))
		ethtool_link_ksettings_add_link_mode(ks, supported, FEC_BASER);
	ethtool_link_ksettings_add_link_mode(ks, advertising, FIBRE);
	ethtool_link_ksettings_add_link_mode(ks, advertising,
					     100000baseCR4_Full);
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

/* Queues that the RSS tables and ntuple rules point at: -L may not go
 * below it.
 */
static u32 kite_queues_in_use(struct kite_priv *priv)
{
	struct net_device *netdev = priv->netdev;
	u32 i, ctx, loc, n = 0;

	if (netif_is_rxfh_configured(netdev))
		for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
			n = max(n, priv->rss_indir[i] + 1);
	for_each_set_bit(ctx, priv->rss_ctx_used, KITE_MAX_RSS_CTX)
		for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
			n = max(n, priv->rss_ctx[ctx].indir[i] + 1);
	for_each_set_bit(loc, priv->flows_used, KITE_MAX_FLOW_RULES) {
		const struct ethtool_rx_flow_spec *fs = &priv->flows[loc];

		if (priv->flow_ctx[loc] || fs->ring_cookie == RX_CLS_FLOW_DISC)
			continue;
		n = max_t(u32, n,
			  ethtool_get_flow_spec_ring(fs->ring_cookie) + 1);
	}
	return n;
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
	if (ch->combined_count < kite_queues_in_use(priv)) {
		netdev_info(netdev, "an RSS table or ntuple rule uses queue %u\n",
			    kite_queues_in_use(priv) - 1);
		return -EINVAL;
	}
	return kite_reconfigure(priv, ch->combined_count, priv->tx_ring_size,
				priv->rx_ring_size, netdev->mtu);
}

static int kite_get_sset_count(struct net_device *netdev, int sset)
{
	struct kite_priv *priv = netdev_priv(netdev);

	if (sset == ETH_SS_TEST)
		return KITE_NUM_TESTS;
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return priv->num_channels * (KITE_NUM_TX_STATS + KITE_NUM_RX_STATS) +
	       KITE_NUM_PORT_STATS;
}

static void kite_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 q, i;

	if (sset == ETH_SS_TEST) {
		for (i = 0; i < KITE_NUM_TESTS; i++)
			ethtool_puts(&data, kite_test_names[i]);
		return;
	}
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

static int kite_get_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);

	ec->rx_coalesce_usecs = priv->coal.rx_usecs;
	ec->rx_max_coalesced_frames = priv->coal.rx_frames;
	ec->tx_coalesce_usecs = priv->coal.tx_usecs;
	ec->tx_max_coalesced_frames = priv->coal.tx_frames;
	ec->use_adaptive_rx_coalesce = priv->coal.rx_adaptive;
	return 0;
}

static int kite_set_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_coal old = priv->coal;
	u32 i;
	int err;

	if (ec->rx_coalesce_usecs > KITE_MAX_MOD_USECS ||
	    ec->tx_coalesce_usecs > KITE_MAX_MOD_USECS) {
		NL_SET_ERR_MSG_MOD(extack, "at most 4095 usecs");
		return -ERANGE;
	}
	if (ec->rx_max_coalesced_frames > KITE_MAX_MOD_FRAMES ||
	    ec->tx_max_coalesced_frames > KITE_MAX_MOD_FRAMES) {
		NL_SET_ERR_MSG_MOD(extack, "at most 65535 frames");
		return -ERANGE;
	}
	priv->coal.rx_usecs = ec->rx_coalesce_usecs;
	priv->coal.rx_frames = ec->rx_max_coalesced_frames;
	priv->coal.tx_usecs = ec->tx_coalesce_usecs;
	priv->coal.tx_frames = ec->tx_max_coalesced_frames;
	WRITE_ONCE(priv->coal.rx_adaptive, !!ec->use_adaptive_rx_coalesce);
	if (old.rx_adaptive && !priv->coal.rx_adaptive && priv->hw_up)
		for (i = 0; i < priv->num_channels; i++)
			cancel_work_sync(&priv->channels[i].rx_dim.work);
	err = kite_apply_coalesce(priv);
	if (err)
		priv->coal = old;
	return err;
}

static void kite_get_pauseparam(struct net_device *netdev,
				struct ethtool_pauseparam *pause)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_info info = {};

	if (kite_query_port(priv->kdev, &info))
		return;
	pause->autoneg = AUTONEG_DISABLE;
	pause->rx_pause = !!(info.pause & KITE_PORT_INFO_PAUSE_RX);
	pause->tx_pause = !!(info.pause & KITE_PORT_INFO_PAUSE_TX);
}

static int kite_set_pauseparam(struct net_device *netdev,
			       struct ethtool_pauseparam *pause)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_info in = {
		.mask = cpu_to_le16(KITE_PORT_INFO_MASK_PAUSE),
	};

	/* The link has a fixed speed: nothing negotiates pause. */
	if (pause->autoneg)
		return -EOPNOTSUPP;
	if (pause->rx_pause)
		in.pause |= KITE_PORT_INFO_PAUSE_RX;
	if (pause->tx_pause)
		in.pause |= KITE_PORT_INFO_PAUSE_TX;
	return kite_set_port_info(priv->kdev, &in);
}

static struct kite_port_stats *kite_port_stats_get(struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_stats *ps;

	ps = kzalloc(sizeof(*ps), GFP_KERNEL);
	if (ps && kite_query_port_stats(priv, ps)) {
		kfree(ps);
		ps = NULL;
	}
	return ps;
}

/* The card counts pause it applies to the wire (rx_pause: it held the
 * link partner back) and pause it honours (tx_pause).
 */
static void kite_get_pause_stats(struct net_device *netdev,
				 struct ethtool_pause_stats *st)
{
	struct kite_port_stats *ps = kite_port_stats_get(netdev);

	if (!ps)
		return;
	st->tx_pause_frames = le64_to_cpu(ps->rx_pause);
	st->rx_pause_frames = le64_to_cpu(ps->tx_pause);
	kfree(ps);
}

static void kite_get_eth_mac_stats(struct net_device *netdev,
				   struct ethtool_eth_mac_stats *st)
{
	struct kite_port_stats *ps = kite_port_stats_get(netdev);
	u64 tx_mc, tx_bc;

	if (!ps)
		return;
	tx_mc = le64_to_cpu(ps->tx_multicast);
	tx_bc = le64_to_cpu(ps->tx_broadcast);
	st->FramesTransmittedOK = le64_to_cpu(ps->tx_packets);
	st->FramesReceivedOK = le64_to_cpu(ps->rx_packets);
	st->FrameCheckSequenceErrors = le64_to_cpu(ps->rx_bad_fcs);
	st->OctetsTransmittedOK = le64_to_cpu(ps->tx_bytes);
	st->OctetsReceivedOK = le64_to_cpu(ps->rx_bytes);
	st->MulticastFramesXmittedOK = tx_mc;
	st->BroadcastFramesXmittedOK = tx_bc;
	st->MulticastFramesReceivedOK = le64_to_cpu(ps->rx_multicast);
	st->BroadcastFramesReceivedOK = le64_to_cpu(ps->rx_broadcast);
	st->FrameTooLongErrors = le64_to_cpu(ps->rx_oversize);
	kfree(ps);
}

/* Pause frames are the only MAC control frames the card knows. */
static void kite_get_eth_ctrl_stats(struct net_device *netdev,
				    struct ethtool_eth_ctrl_stats *st)
{
	struct kite_port_stats *ps = kite_port_stats_get(netdev);

	if (!ps)
		return;
	st->MACControlFramesTransmitted = le64_to_cpu(ps->rx_pause);
	st->MACControlFramesReceived = le64_to_cpu(ps->tx_pause);
	kfree(ps);
}

static const struct ethtool_rmon_hist_range kite_rmon_ranges[] = {
	{ 0, 64 },
	{ 65, 127 },
	{ 128, 255 },
	{ 256, 511 },
	{ 512, 1023 },
	{ 1024, 1518 },
	{ 1519, KITE_MAX_MTU + ETH_HLEN + VLAN_HLEN + KITE_FCS_LEN },
	{}
};

static void kite_get_rmon_stats(struct net_device *netdev,
				struct ethtool_rmon_stats *st,
				const struct ethtool_rmon_hist_range **ranges)
{
	struct kite_port_stats *ps = kite_port_stats_get(netdev);
	u32 i;

	if (!ps)
		return;
	st->undersize_pkts = le64_to_cpu(ps->rx_runt);
	st->oversize_pkts = le64_to_cpu(ps->rx_oversize);
	for (i = 0; i < ARRAY_SIZE(ps->rx_hist); i++)
		st->hist[i] = le64_to_cpu(ps->rx_hist[i]);
	*ranges = kite_rmon_ranges;
	kfree(ps);
}

static u32 kite_fec_to_ethtool(u8 mode)
{
	switch (mode) {
	case KITE_FEC_MODE_OFF:
		return ETHTOOL_FEC_OFF;
	case KITE_FEC_MODE_RS:
		return ETHTOOL_FEC_RS;
	case KITE_FEC_MODE_BASER:
		return ETHTOOL_FEC_BASER;
	default:
		return ETHTOOL_FEC_AUTO;
	}
}

static int kite_get_fecparam(struct net_device *netdev,
			     struct ethtool_fecparam *fec)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_info info = {};
	u32 m;
	int err;

	err = kite_query_port(priv->kdev, &info);
	if (err)
		return err;
	fec->fec = 0;
	for (m = KITE_FEC_MODE_OFF; m <= KITE_FEC_MODE_AUTO; m++)
		if (info.supported_fec & BIT(m))
			fec->fec |= kite_fec_to_ethtool(m);
	/* AUTO settles on RS, the FEC of 100GBASE-CR4. */
	fec->active_fec = info.fec == KITE_FEC_MODE_AUTO ?
			  ETHTOOL_FEC_RS : kite_fec_to_ethtool(info.fec);
	if (!info.link_up)
		fec->active_fec = 0;
	return 0;
}

static int kite_set_fecparam(struct net_device *netdev,
			     struct ethtool_fecparam *fec)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_port_info in = {
		.mask = cpu_to_le16(KITE_PORT_INFO_MASK_FEC),
	};

	switch (fec->fec) {
	case ETHTOOL_FEC_OFF:
		in.fec = KITE_FEC_MODE_OFF;
		break;
	case ETHTOOL_FEC_RS:
		in.fec = KITE_FEC_MODE_RS;
		break;
	case ETHTOOL_FEC_BASER:
		in.fec = KITE_FEC_MODE_BASER;
		break;
	case ETHTOOL_FEC_AUTO:
		in.fec = KITE_FEC_MODE_AUTO;
		break;
	default:
		return -EINVAL;
	}
	return kite_set_port_info(priv->kdev, &in);
}

static int kite_get_regs_len(struct net_device *netdev)
{
	return KITE_REGS_DUMP_WORDS * sizeof(u32) +
	       sizeof(struct kite_port_stats);
}

/* Registers 0..SCRATCH as 32-bit words, then the port counters. */
static void kite_get_regs(struct net_device *netdev, struct ethtool_regs *regs,
			  void *p)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_dev *kdev = priv->kdev;
	u64 *st = p + KITE_REGS_DUMP_WORDS * sizeof(u32);
	u32 *w = p, i;

	regs->version = kite_rd32(kdev, KITE_REG_SPEC_VERSION);
	for (i = 0; i < KITE_REGS_DUMP_WORDS; i++)
		w[i] = kite_rd32(kdev, i * 4);
	for (i = 0; i < sizeof(struct kite_port_stats) / sizeof(u64); i++)
		st[i] = lo_hi_readq(kdev->regs + KITE_REG_STATS_BASE + i * 8);
}

static bool kite_test_regs(struct kite_dev *kdev)
{
	static const u32 pat[] = { 0, 0xffffffff, 0x5a5a5a5a, 0xa5a5a5a5,
				   0x00ff00ff, 0x12345678 };
	u32 saved = kite_rd32(kdev, KITE_REG_SCRATCH);
	bool ok = true;
	u32 i;

	if (kite_rd32(kdev, KITE_REG_MAGIC) != KITE_MAGIC ||
	    FIELD_GET(KITE_REG_SPEC_VERSION_MAJOR,
		      kite_rd32(kdev, KITE_REG_SPEC_VERSION)) != KITE_SPEC_MAJOR)
		return false;
	for (i = 0; i < ARRAY_SIZE(pat) && ok; i++) {
		kite_wr32(kdev, KITE_REG_SCRATCH, pat[i]);
		ok = kite_rd32(kdev, KITE_REG_SCRATCH) == pat[i];
	}
	kite_wr32(kdev, KITE_REG_SCRATCH, saved);
	return ok;
}

static bool kite_test_fw(struct kite_dev *kdev)
{
	struct kite_health_out h = {};
	u32 st = kite_rd32(kdev, KITE_REG_DEV_STATUS);
	u32 hb = kite_rd32(kdev, KITE_REG_HEARTBEAT);

	if (!(st & KITE_REG_DEV_STATUS_READY) ||
	    (st & KITE_REG_DEV_STATUS_FATAL))
		return false;
	if (kite_cmd_exec(kdev, KITE_CMD_OPCODE_QUERY_HEALTH, NULL, 0, &h,
			  sizeof(h)) || h.state)
		return false;
	/* The heartbeat advances every millisecond the firmware runs. */
	msleep(20);
	return kite_rd32(kdev, KITE_REG_HEARTBEAT) != hb;
}

static void kite_self_test(struct net_device *netdev, struct ethtool_test *et,
			   u64 *data)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_dev *kdev = priv->kdev;

	memset(data, 0, KITE_NUM_TESTS * sizeof(*data));
	/* The register and firmware tests disturb nothing: they run online
	 * too. There is no loopback in the card to test the datapath with.
	 */
	data[KITE_TEST_REGS] = !kite_test_regs(kdev);
	data[KITE_TEST_FW] = !kite_test_fw(kdev);
	data[KITE_TEST_LINK] = netif_running(netdev) && !netif_carrier_ok(netdev);
	if (data[KITE_TEST_REGS] || data[KITE_TEST_FW] || data[KITE_TEST_LINK])
		et->flags |= ETH_TEST_FL_FAILED;
}

static u32 kite_get_rxfh_key_size(struct net_device *netdev)
{
	return KITE_RSS_KEY_SIZE;
}

static u32 kite_get_rxfh_indir_size(struct net_device *netdev)
{
	return KITE_RSS_TABLE_SIZE;
}

int kite_rxfh_get(struct net_device *netdev, u32 ctx, u32 *indir, u8 *key)
{
	struct kite_priv *priv = netdev_priv(netdev);
	const u32 *t = priv->rss_indir;
	const u8 *k = priv->rss_key;

	if (ctx) {
		if (ctx >= KITE_MAX_RSS_CTX || !test_bit(ctx, priv->rss_ctx_used))
			return -ENOENT;
		t = priv->rss_ctx[ctx].indir;
		k = priv->rss_ctx[ctx].key;
	}
	if (indir)
		memcpy(indir, t, sizeof(priv->rss_indir));
	if (key)
		memcpy(key, k, sizeof(priv->rss_key));
	return 0;
}

static int kite_indir_check(struct kite_priv *priv, const u32 *indir)
{
	u32 i;

	if (indir)
		for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
			if (indir[i] >= priv->num_channels)
				return -EINVAL;
	return 0;
}

int kite_rxfh_set(struct net_device *netdev, const u32 *indir, const u8 *key)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 old_indir[KITE_RSS_TABLE_SIZE];
	u8 old_key[KITE_RSS_KEY_SIZE];
	int err;

	err = kite_indir_check(priv, indir);
	if (err)
		return err;
	memcpy(old_indir, priv->rss_indir, sizeof(old_indir));
	memcpy(old_key, priv->rss_key, sizeof(old_key));
	if (indir)
		memcpy(priv->rss_indir, indir, sizeof(priv->rss_indir));
	if (key)
		memcpy(priv->rss_key, key, sizeof(priv->rss_key));
	if (!priv->hw_up)
		return 0;
	err = kite_rss_set(priv);
	if (err) {
		memcpy(priv->rss_indir, old_indir, sizeof(old_indir));
		memcpy(priv->rss_key, old_key, sizeof(old_key));
	}
	return err;
}

/* Additional RSS contexts: the card has KITE_MAX_RSS_CTX per function and
 * port, 0 being the default steering. The driver keeps each context's
 * table and key and programs them while the queues exist.
 */
int kite_rss_ctx_alloc(struct net_device *netdev)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 ctx;

	ctx = find_next_zero_bit(priv->rss_ctx_used, KITE_MAX_RSS_CTX, 1);
	/* What the 6.12 core answers when its IDs run out. */
	return ctx < KITE_MAX_RSS_CTX ? ctx : -EBUSY;
}

int kite_rss_ctx_create(struct net_device *netdev, u32 ctx, const u32 *indir,
			const u8 *key, struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_rss_ctx *c;
	u32 i;
	int err;

	if (!ctx || ctx >= KITE_MAX_RSS_CTX) {
		NL_SET_ERR_MSG_MOD(extack, "RSS context number out of range");
		return -EINVAL;
	}
	if (test_bit(ctx, priv->rss_ctx_used))
		return -EEXIST;
	err = kite_indir_check(priv, indir);
	if (err)
		return err;
	c = &priv->rss_ctx[ctx];
	for (i = 0; i < KITE_RSS_TABLE_SIZE; i++)
		c->indir[i] = indir ? indir[i] :
			ethtool_rxfh_indir_default(i, priv->num_channels);
	memcpy(c->key, key ? key : priv->rss_key, sizeof(c->key));
	if (priv->hw_up) {
		err = kite_rss_ctx_program(priv, ctx);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "the card refused the RSS context");
			return err;
		}
	}
	set_bit(ctx, priv->rss_ctx_used);
	return 0;
}

int kite_rss_ctx_modify(struct net_device *netdev, u32 ctx, const u32 *indir,
			const u8 *key, struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);
	struct kite_rss_ctx old, *c;
	int err;

	if (!ctx || ctx >= KITE_MAX_RSS_CTX ||
	    !test_bit(ctx, priv->rss_ctx_used))
		return -ENOENT;
	err = kite_indir_check(priv, indir);
	if (err)
		return err;
	c = &priv->rss_ctx[ctx];
	old = *c;
	if (indir)
		memcpy(c->indir, indir, sizeof(c->indir));
	if (key)
		memcpy(c->key, key, sizeof(c->key));
	if (!priv->hw_up)
		return 0;
	/* SET_RSS of a live context replaces it in place. */
	err = kite_rss_ctx_program(priv, ctx);
	if (err) {
		*c = old;
		NL_SET_ERR_MSG_MOD(extack, "the card refused the RSS context");
	}
	return err;
}

static bool kite_rss_ctx_busy(struct kite_priv *priv, u32 ctx)
{
	u32 loc;

	for_each_set_bit(loc, priv->flows_used, KITE_MAX_FLOW_RULES)
		if (priv->flow_ctx[loc] == ctx)
			return true;
	return false;
}

int kite_rss_ctx_remove(struct net_device *netdev, u32 ctx,
			struct netlink_ext_ack *extack)
{
	struct kite_priv *priv = netdev_priv(netdev);

	if (!ctx || ctx >= KITE_MAX_RSS_CTX ||
	    !test_bit(ctx, priv->rss_ctx_used))
		return -ENOENT;
	/* The card would drop what a rule steers to a missing context;
	 * the core removes every context of a netdev it unregisters.
	 */
	if (netdev->reg_state == NETREG_REGISTERED &&
	    kite_rss_ctx_busy(priv, ctx)) {
		NL_SET_ERR_MSG_MOD(extack, "RSS context is used by an ntuple rule");
		return -EBUSY;
	}
	kite_rss_ctx_unprogram(priv, ctx);
	clear_bit(ctx, priv->rss_ctx_used);
	return 0;
}

/* RSS hash fields per flow type: addresses always, TCP/UDP ports optional. */
static int kite_flow_fields(u32 flow_type, u8 *l3, u8 *l4)
{
	switch (flow_type) {
	case TCP_V4_FLOW:
		*l4 = KITE_RSS_FIELD_IPV4_TCP;
		break;
	case UDP_V4_FLOW:
		*l4 = KITE_RSS_FIELD_IPV4_UDP;
		break;
	case TCP_V6_FLOW:
		*l4 = KITE_RSS_FIELD_IPV6_TCP;
		break;
	case UDP_V6_FLOW:
		*l4 = KITE_RSS_FIELD_IPV6_UDP;
		break;
	case IPV4_FLOW:
	case AH_ESP_V4_FLOW:
	case AH_V4_FLOW:
	case ESP_V4_FLOW:
	case SCTP_V4_FLOW:
	case IPV6_FLOW:
	case AH_ESP_V6_FLOW:
	case AH_V6_FLOW:
	case ESP_V6_FLOW:
	case SCTP_V6_FLOW:
		*l4 = 0;
		break;
	default:
		return -EINVAL;
	}
	switch (flow_type) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
	case IPV4_FLOW:
	case AH_ESP_V4_FLOW:
	case AH_V4_FLOW:
	case ESP_V4_FLOW:
	case SCTP_V4_FLOW:
		*l3 = KITE_RSS_FIELD_IPV4;
		break;
	default:
		*l3 = KITE_RSS_FIELD_IPV6;
	}
	return 0;
}

/* ntuple (ethtool -N flow-type tcp4|udp4|tcp6|udp6 ... action N|-1):
 * exact-match SET_FLOW_RULE rules, one per location, reprogrammed with the
 * queues on every open.
 */
static bool kite_mask_full(const void *m, const void *v, size_t len, bool *set)
{
	const u8 *mb = m, *vb = v;
	size_t i;

	*set = false;
	for (i = 0; i < len; i++) {
		if (mb[i] != 0 && mb[i] != 0xff)
			return false;
		if (mb[i] != mb[0])
			return false;
	}
	if (mb[0] == 0xff) {
		*set = true;
		return true;
	}
	for (i = 0; i < len; i++)
		if (vb[i])
			return false;
	return true;
}

static int kite_flow_to_hw(struct kite_priv *priv,
			   const struct ethtool_rx_flow_spec *fs, u32 ctx,
			   u32 loc, struct kite_flow_rule_in *in)
{
	const struct ethtool_tcpip4_spec *v4 = &fs->h_u.tcp_ip4_spec;
	const struct ethtool_tcpip4_spec *m4 = &fs->m_u.tcp_ip4_spec;
	const struct ethtool_tcpip6_spec *v6 = &fs->h_u.tcp_ip6_spec;
	const struct ethtool_tcpip6_spec *m6 = &fs->m_u.tcp_ip6_spec;
	bool sip, dip, sp, dp;
	u32 ring;

	memset(in, 0, sizeof(*in));
	in->rule = cpu_to_le16(loc);
	in->op = 1;
	in->port = priv->port;
	switch (fs->flow_type & ~FLOW_RSS) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		if (m4->tos ||
		    !kite_mask_full(&m4->ip4src, &v4->ip4src, 4, &sip) ||
		    !kite_mask_full(&m4->ip4dst, &v4->ip4dst, 4, &dip) ||
		    !kite_mask_full(&m4->psrc, &v4->psrc, 2, &sp) ||
		    !kite_mask_full(&m4->pdst, &v4->pdst, 2, &dp))
			return -EINVAL;
		in->src_ip[10] = 0xff;
		in->src_ip[11] = 0xff;
		in->dst_ip[10] = 0xff;
		in->dst_ip[11] = 0xff;
		memcpy(&in->src_ip[12], &v4->ip4src, 4);
		memcpy(&in->dst_ip[12], &v4->ip4dst, 4);
		in->src_port = v4->psrc;
		in->dst_port = v4->pdst;
		in->l4_proto = (fs->flow_type & ~FLOW_RSS) == TCP_V4_FLOW ? IPPROTO_TCP :
							      IPPROTO_UDP;
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		if (m6->tclass ||
		    !kite_mask_full(m6->ip6src, v6->ip6src, 16, &sip) ||
		    !kite_mask_full(m6->ip6dst, v6->ip6dst, 16, &dip) ||
		    !kite_mask_full(&m6->psrc, &v6->psrc, 2, &sp) ||
		    !kite_mask_full(&m6->pdst, &v6->pdst, 2, &dp))
			return -EINVAL;
		memcpy(in->src_ip, v6->ip6src, 16);
		memcpy(in->dst_ip, v6->ip6dst, 16);
		in->src_port = v6->psrc;
		in->dst_port = v6->pdst;
		in->l4_proto = (fs->flow_type & ~FLOW_RSS) == TCP_V6_FLOW ? IPPROTO_TCP :
							      IPPROTO_UDP;
		in->match = KITE_FLOW_RULE_IN_MATCH_IPV6;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (!sip)
		memset(in->src_ip, 0, sizeof(in->src_ip));
	if (!dip)
		memset(in->dst_ip, 0, sizeof(in->dst_ip));
	in->match |= (sip ? KITE_FLOW_RULE_IN_MATCH_SRC_IP : 0) |
		     (dip ? KITE_FLOW_RULE_IN_MATCH_DST_IP : 0) |
		     (sp ? KITE_FLOW_RULE_IN_MATCH_SRC_PORT : 0) |
		     (dp ? KITE_FLOW_RULE_IN_MATCH_DST_PORT : 0);
	if (fs->flow_type & FLOW_RSS) {
		/* The card hashes within the context; it cannot add a
		 * queue offset to what the table picks.
		 */
		if (fs->ring_cookie || !ctx || ctx >= KITE_MAX_RSS_CTX ||
		    !test_bit(ctx, priv->rss_ctx_used))
			return -EINVAL;
		in->action = 1;
		in->ctx = cpu_to_le16(ctx);
		return 0;
	}
	if (fs->ring_cookie == RX_CLS_FLOW_DISC) {
		in->action = 2;
		return 0;
	}
	ring = ethtool_get_flow_spec_ring(fs->ring_cookie);
	if (ethtool_get_flow_spec_ring_vf(fs->ring_cookie) ||
	    ring >= priv->num_channels)
		return -EINVAL;
	in->action = 0;
	/* Sent only while the channels exist (open, or hw_up). */
	in->rq = cpu_to_le32(priv->channels[ring].rxq.rqn);
	return 0;
}

static int kite_flow_program(struct kite_priv *priv, u32 loc)
{
	struct kite_flow_rule_in in;
	int err;

	err = kite_flow_to_hw(priv, &priv->flows[loc], priv->flow_ctx[loc],
			      loc, &in);
	if (err)
		return err;
	return kite_cmd_exec(priv->kdev, KITE_CMD_OPCODE_SET_FLOW_RULE, &in,
			     sizeof(in), NULL, 0);
}

static int kite_flow_unprogram(struct kite_priv *priv, u32 loc)
{
	struct kite_flow_rule_in in = {};

	in.rule = cpu_to_le16(loc);
	in.port = priv->port;
	return kite_cmd_exec(priv->kdev, KITE_CMD_OPCODE_SET_FLOW_RULE, &in,
			     sizeof(in), NULL, 0);
}

int kite_flows_install(struct kite_priv *priv)
{
	u32 loc;
	int err;

	for_each_set_bit(loc, priv->flows_used, KITE_MAX_FLOW_RULES) {
		err = kite_flow_program(priv, loc);
		if (err)
			goto undo;
	}
	return 0;
undo:
	while (loc--)
		if (test_bit(loc, priv->flows_used))
			kite_flow_unprogram(priv, loc);
	return err;
}

/* Removes the rules from the card (they hold its RQs); the table stays. */
void kite_flows_remove(struct kite_priv *priv)
{
	u32 loc;

	for_each_set_bit(loc, priv->flows_used, KITE_MAX_FLOW_RULES)
		kite_flow_unprogram(priv, loc);
}

static int kite_flow_insert(struct kite_priv *priv, struct ethtool_rxnfc *nfc)
{
	struct ethtool_rx_flow_spec *fs = &nfc->fs;
	struct ethtool_rx_flow_spec old;
	struct kite_flow_rule_in in;
	u32 ctx = fs->flow_type & FLOW_RSS ? nfc->rss_context : 0;
	u32 loc = fs->location;
	u16 old_ctx;
	bool was;
	int err;

	if (!(priv->netdev->features & NETIF_F_NTUPLE))
		return -EOPNOTSUPP;
	if (fs->flow_type & (FLOW_EXT | FLOW_MAC_EXT))
		return -EOPNOTSUPP;
	if (loc == RX_CLS_LOC_ANY) {
		loc = find_first_zero_bit(priv->flows_used,
					  KITE_MAX_FLOW_RULES);
		if (loc >= KITE_MAX_FLOW_RULES)
			return -ENOSPC;
		fs->location = loc;
	}
	if (loc >= KITE_MAX_FLOW_RULES)
		return -EINVAL;
	err = kite_flow_to_hw(priv, fs, ctx, loc, &in);
	if (err)
		return err;
	old = priv->flows[loc];
	old_ctx = priv->flow_ctx[loc];
	was = test_bit(loc, priv->flows_used);
	priv->flows[loc] = *fs;
	priv->flow_ctx[loc] = ctx;
	set_bit(loc, priv->flows_used);
	if (!priv->hw_up)
		return 0;
	err = kite_cmd_exec(priv->kdev, KITE_CMD_OPCODE_SET_FLOW_RULE, &in,
			    sizeof(in), NULL, 0);
	if (err) {
		priv->flows[loc] = old;
		priv->flow_ctx[loc] = old_ctx;
		if (!was)
			clear_bit(loc, priv->flows_used);
	}
	return err;
}

static int kite_flow_delete(struct kite_priv *priv, u32 loc)
{
	if (loc >= KITE_MAX_FLOW_RULES || !test_bit(loc, priv->flows_used))
		return -ENOENT;
	if (priv->hw_up)
		kite_flow_unprogram(priv, loc);
	clear_bit(loc, priv->flows_used);
	priv->flow_ctx[loc] = 0;
	return 0;
}

static int kite_get_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *nfc,
			  u32 *rule_locs)
{
	struct kite_priv *priv = netdev_priv(netdev);
	u32 loc, n = 0;
	u8 l3, l4;

	switch (nfc->cmd) {
	case ETHTOOL_GRXRINGS:
		nfc->data = priv->num_channels;
		return 0;
	case ETHTOOL_GRXCLSRLCNT:
		nfc->rule_cnt = bitmap_weight(priv->flows_used,
					      KITE_MAX_FLOW_RULES);
		nfc->data = KITE_MAX_FLOW_RULES | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		loc = nfc->fs.location;
		if (loc >= KITE_MAX_FLOW_RULES ||
		    !test_bit(loc, priv->flows_used))
			return -ENOENT;
		nfc->fs = priv->flows[loc];
		nfc->rss_context = priv->flow_ctx[loc];
		nfc->data = KITE_MAX_FLOW_RULES;
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		for_each_set_bit(loc, priv->flows_used, KITE_MAX_FLOW_RULES) {
			if (n == nfc->rule_cnt)
				return -EMSGSIZE;
			rule_locs[n++] = loc;
		}
		nfc->rule_cnt = n;
		nfc->data = KITE_MAX_FLOW_RULES;
		return 0;
	case ETHTOOL_GRXFH:
		/* Every context of the port hashes the same fields. */
		if ((nfc->flow_type & FLOW_RSS) && nfc->rss_context &&
		    (nfc->rss_context >= KITE_MAX_RSS_CTX ||
		     !test_bit(nfc->rss_context, priv->rss_ctx_used)))
			return -ENOENT;
		if (kite_flow_fields(nfc->flow_type & ~FLOW_RSS, &l3, &l4))
			return -EINVAL;
		nfc->data = 0;
		if (priv->rss_fields & l3)
			nfc->data |= RXH_IP_SRC | RXH_IP_DST;
		if (priv->rss_fields & l4)
			nfc->data |= RXH_L4_B_0_1 | RXH_L4_B_2_3;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int kite_set_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *nfc)
{
	struct kite_priv *priv = netdev_priv(netdev);
	const u64 ip = RXH_IP_SRC | RXH_IP_DST;
	const u64 ports = RXH_L4_B_0_1 | RXH_L4_B_2_3;
	u8 l3, l4, old = priv->rss_fields;
	u32 ctx;
	int err;

	if (nfc->cmd == ETHTOOL_SRXCLSRLINS)
		return kite_flow_insert(priv, nfc);
	if (nfc->cmd == ETHTOOL_SRXCLSRLDEL)
		return kite_flow_delete(priv, nfc->fs.location);
	if (nfc->cmd != ETHTOOL_SRXFH)
		return -EOPNOTSUPP;
	/* Hash fields are one setting of the port, not of a context. */
	if ((nfc->flow_type & FLOW_RSS) && nfc->rss_context)
		return -EOPNOTSUPP;
	if (kite_flow_fields(nfc->flow_type & ~FLOW_RSS, &l3, &l4))
		return -EINVAL;
	/* The card hashes the address pair, plus both ports for TCP and
	 * UDP when asked; addresses stay in because the IPv4/IPv6 field
	 * is shared by every flow type of the family.
	 */
	if (nfc->data == ip)
		priv->rss_fields &= ~l4;
	else if (l4 && nfc->data == (ip | ports))
		priv->rss_fields |= l4;
	else
		return -EINVAL;
	if (priv->rss_fields == old || !priv->hw_up)
		return 0;
	err = kite_rss_set(priv);
	for_each_set_bit(ctx, priv->rss_ctx_hw, KITE_MAX_RSS_CTX) {
		if (err)
			break;
		err = kite_rss_ctx_program(priv, ctx);
	}
	if (err) {
		/* Put every context back on the old fields. */
		priv->rss_fields = old;
		kite_rss_set(priv);
		for_each_set_bit(ctx, priv->rss_ctx_hw, KITE_MAX_RSS_CTX)
			kite_rss_ctx_program(priv, ctx);
	}
	return err;
}

static const struct ethtool_ops kite_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES |
				     ETHTOOL_COALESCE_USE_ADAPTIVE_RX,
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
	.get_coalesce = kite_get_coalesce,
	.set_coalesce = kite_set_coalesce,
	.get_pauseparam = kite_get_pauseparam,
	.set_pauseparam = kite_set_pauseparam,
	.get_pause_stats = kite_get_pause_stats,
	.get_eth_mac_stats = kite_get_eth_mac_stats,
	.get_eth_ctrl_stats = kite_get_eth_ctrl_stats,
	.get_rmon_stats = kite_get_rmon_stats,
	.get_fecparam = kite_get_fecparam,
	.set_fecparam = kite_set_fecparam,
	.get_regs_len = kite_get_regs_len,
	.get_regs = kite_get_regs,
	.self_test = kite_self_test,
	.get_rxfh_key_size = kite_get_rxfh_key_size,
	.get_rxfh_indir_size = kite_get_rxfh_indir_size,
	.get_rxfh = kite_get_rxfh,
	.set_rxfh = kite_set_rxfh,
	.get_rxnfc = kite_get_rxnfc,
	.set_rxnfc = kite_set_rxnfc,
	KITE_RSS_CTX_OPS
};

void kite_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &kite_ethtool_ops;
}
