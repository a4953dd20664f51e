/* The transform slot's built-in occupants (memory.md §12). */
#ifndef KH_SYSNODE_XFORM_H
#define KH_SYSNODE_XFORM_H

#include "kohaku/node.h"

extern const kh_xform_occupant kh_xform_bypass; /* id 0 */
extern const kh_xform_occupant kh_xform_quant;  /* id 1 */

#endif
