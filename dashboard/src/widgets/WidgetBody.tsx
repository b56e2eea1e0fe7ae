import type { ComponentType } from 'react';
import type { WidgetType } from './catalog';
import * as d from './displays';
import * as i from './inputs';

/** The component of each of the 29 types; a missing entry is a compile error. */
const BODIES: Record<WidgetType, ComponentType<i.InputProps>> = {
  BUTTON: i.ButtonWidget,
  SWITCH: i.SwitchWidget,
  SLIDER: i.SliderWidget,
  GAUGE: d.GaugeWidget,
  ANALOG_GAUGE: d.AnalogGaugeWidget,
  GRAPH: d.GraphWidget,
  VALUE_DISPLAY: d.ValueDisplayWidget,
  LCD: d.LcdWidget,
  TERMINAL: i.TerminalWidget,
  LED: d.LedWidget,
  JOYSTICK: i.JoystickWidget,
  MAP: d.MapWidget,
  PROGRESS_BAR: d.ProgressWidget,
  COLOR_PICKER: i.ColorPickerWidget,
  STEP_CONTROL: i.StepControlWidget,
  BRIDGE: d.BridgeWidget,
  IMAGE: d.ImageWidget,
  TABLE: d.TableWidget,
  BAR_CHART: d.BarChartWidget,
  ALERT: d.AlertWidget,
  NUMBER_INPUT: i.NumberInputWidget,
  TIMER: d.TimerWidget,
  SEGMENTED_CONTROL: i.SegmentedWidget,
  SIGNAL_STRENGTH: d.SignalWidget,
  TEXT_INPUT: i.TextInputWidget,
  SPARKLINE: d.SparklineWidget,
  ICON_STATUS: d.IconStatusWidget,
  KEYPAD: i.KeypadWidget,
  LOCATION: d.LocationWidget,
};

export function WidgetBody(props: i.InputProps & { type: WidgetType }) {
  const Body = BODIES[props.type];
  return <Body {...props} />;
}
