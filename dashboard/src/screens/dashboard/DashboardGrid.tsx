import { useMemo } from 'react';
import ReactGridLayout, { useContainerWidth, type Layout as GridLayout } from 'react-grid-layout';
import 'react-grid-layout/css/styles.css';
import type { DeviceWidget, Layout, Widget } from '../../api/types';
import { WidgetFrame } from '../../widgets/WidgetFrame';
import { GRID_COLUMNS, oneColumn } from './placement';

/** Under this grid width the dashboard is one column: 3 of 12 columns would be ~50 px wide. */
export const ONE_COLUMN_BELOW_PX = 720;
const ROW_HEIGHT_PX = 60;

interface Props {
  /** Each bound to the device it shows: a template's widgets to the device picked for them. */
  widgets: DeviceWidget[];
  readOnly: boolean;
  deviceName: (deviceId: string) => string;
  onEdit: (w: Widget) => void;
  onDelete: (w: Widget) => void;
  /** A drag or resize ended on the wide grid: every widget's box as it now is. */
  onLayout: (boxes: Array<{ id: string; layout: Layout }>) => void;
}

/**
 * The widgets on a 12-column grid, where a drag (by the header) or a resize saves each moved
 * widget's `layout`. On a narrow screen the same widgets stack in one column, in reading order,
 * and cannot be moved there, so the saved wide layout is never overwritten by the narrow one.
 */
export function DashboardGrid({ widgets, readOnly, deviceName, onEdit, onDelete, onLayout }: Props) {
  const { width, containerRef, mounted } = useContainerWidth({ measureBeforeMount: true });
  const narrow = width < ONE_COLUMN_BELOW_PX;
  const wide = useMemo<GridLayout>(() => widgets.map((w) => ({ i: w.id, ...w.layout })), [widgets]);
  const layout = useMemo(() => (narrow ? oneColumn(wide) : wide), [narrow, wide]);
  const movable = !readOnly && !narrow;
  const save = (next: GridLayout) => onLayout(next.map(({ i, x, y, w, h }) => ({ id: i, layout: { x, y, w, h } })));

  return (
    <div ref={containerRef} className="grid-host" data-columns={narrow ? 1 : GRID_COLUMNS}>
      {mounted && (
        <ReactGridLayout
          layout={layout}
          width={width}
          gridConfig={{ cols: narrow ? 1 : GRID_COLUMNS, rowHeight: ROW_HEIGHT_PX }}
          dragConfig={{ enabled: movable, handle: '.widget-handle', cancel: 'button' }}
          resizeConfig={{ enabled: movable }}
          onDragStop={save}
          onResizeStop={save}
        >
          {widgets.map((w) => (
            <div key={w.id}>
              <WidgetFrame widget={w} deviceName={deviceName(w.deviceId)} readOnly={readOnly} onEdit={onEdit} onDelete={onDelete} />
            </div>
          ))}
        </ReactGridLayout>
      )}
    </div>
  );
}
