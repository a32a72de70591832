/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Differences between the kernels kite.ko is built for (Debian's 6.1 and
 * 6.12). Everything version dependent lives here, detected by feature
 * rather than by version number. The out-of-tree Kbuild file looks at the
 * target kernel's headers and defines KITE_NEED_* (an older API is needed)
 * or KITE_HAVE_* (an older API exists); an in-tree build needs neither.
 */
#ifndef _KITE_COMPAT_H
#define _KITE_COMPAT_H

#include <linux/ethtool.h>
#include <linux/string.h>
#include <net/devlink.h>

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
	return kite_rxfh_get(netdev, rxfh->indir, rxfh->key);
}

static inline int kite_set_rxfh(struct net_device *netdev,
				struct ethtool_rxfh_param *rxfh,
				struct netlink_ext_ack *extack)
{
	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	return kite_rxfh_set(netdev, rxfh->indir, rxfh->key);
}
#else
static inline int kite_get_rxfh(struct net_device *netdev, u32 *indir,
				u8 *key, u8 *hfunc)
{
	if (hfunc)
		*hfunc = ETH_RSS_HASH_TOP;
	return kite_rxfh_get(netdev, indir, key);
}

static inline int kite_set_rxfh(struct net_device *netdev, const u32 *indir,
				const u8 *key, const u8 hfunc)
{
	if (hfunc != ETH_RSS_HASH_NO_CHANGE && hfunc != ETH_RSS_HASH_TOP)
		return -EOPNOTSUPP;
	return kite_rxfh_set(netdev, indir, key);
}
#endif

#endif /* _KITE_COMPAT_H */
